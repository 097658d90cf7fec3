#include "tests/faults/proxy_session.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include "tests/faults/kube_status.hpp"
#include "tests/faults/watch_lines.hpp"

namespace kueuepp::faults {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using asio::awaitable;
using Clock = std::chrono::steady_clock;

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr std::uint32_t kHeaderLimit = 64 * 1024;
constexpr std::size_t kReadChunk = 64 * 1024;
/// Event bytes a lagging watch may hold before the proxy stops reading the upstream.
constexpr std::size_t kMaxQueuedBytes = std::size_t{64} << 20;

using Request = http::request<http::string_body>;
using ResponseParser = http::response_parser<http::buffer_body>;

/// How the proxy frames an answer it relays to the client.
enum class Framing {
  none,     ///< no body (HEAD, 204, 304, Content-Length: 0): the header fields as they are
  length,   ///< Content-Length: the body bytes as they come
  chunked,  ///< chunked (also for a body delimited by the server closing the connection)
};

bool hop_by_hop(std::string_view name) {
  for (std::string_view h : {"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade"}) {
    if (beast::iequals(name, h)) return true;
  }
  return false;
}

std::string response_head(const http::response_header<>& head, Framing framing, std::uint64_t length,
                          bool keep_alive) {
  std::string reason(head.reason());
  if (reason.empty()) reason = std::string(http::obsolete_reason(head.result()));
  std::string out = "HTTP/1.1 " + std::to_string(head.result_int()) + " " + reason + "\r\n";
  for (const auto& field : head) {
    const std::string_view name = field.name_string();
    if (hop_by_hop(name)) continue;
    const bool framing_field = beast::iequals(name, "Content-Length") || beast::iequals(name, "Transfer-Encoding");
    if (framing != Framing::none && framing_field) continue;
    out.append(name).append(": ").append(field.value()).append("\r\n");
  }
  if (framing == Framing::length) out += "Content-Length: " + std::to_string(length) + "\r\n";
  if (framing == Framing::chunked) out += "Transfer-Encoding: chunked\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  return out;
}

void append_chunk(std::string& out, std::string_view data) {
  if (data.empty()) return;  // an empty chunk would end the body
  char size[24];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  out.append(size).append(data).append("\r\n");
}

/// Event lines waiting for their time to be written to the client (watch faults).
struct LineQueue {
  enum class Kind { line, end, abort };
  struct Item {
    Clock::time_point due;
    Kind kind;
    std::string data;
  };
  std::deque<Item> items;
  std::size_t bytes = 0;
  bool ended_cleanly = false;
};

/// What a watch fault does to the event stream.
struct StreamPlan {
  std::chrono::milliseconds lag{0};
  std::optional<std::uint64_t> end_after;  ///< cut or expire after this many events
  bool gone = false;                       ///< end with an ERROR 410 event (else a clean end)
  std::size_t rule = 0;                    ///< the cut_watch_after / watch_gone rule
};

class Session final : public ProxyConnection, public std::enable_shared_from_this<Session> {
 public:
  Session(ProxyContext& context, tcp::socket client, std::uint64_t id)
      : ctx_(context),
        id_(id),
        client_(std::move(client)),
        upstream_(client_.get_executor()),
        timer_(client_.get_executor()),
        wake_(client_.get_executor()),
        space_(client_.get_executor()) {}

  ~Session() override { ctx_.remove_connection(id_); }

  void start() {
    asio::co_spawn(client_.get_executor(), run(shared_from_this()), asio::detached);
  }

  void close(bool abort) override {
    asio::post(client_.get_executor(), [self = shared_from_this(), abort] { self->close_now(abort); });
  }

 private:
  awaitable<void> run(std::shared_ptr<Session> keep_alive);
  awaitable<bool> serve(Request& request);
  awaitable<bool> answer_status(int code, std::string_view reason, std::string_view message,
                                std::optional<int> retry_after, bool keep_alive);
  awaitable<bool> forward(Request& request, const FaultDecision& decision);
  awaitable<bool> drop_answer(ResponseParser& parser, std::size_t rule);
  awaitable<bool> relay(ResponseParser& parser, bool keep_alive);
  awaitable<void> relay_body(ResponseParser& parser, Framing framing, bool& ok);
  awaitable<bool> relay_lines(ResponseParser& parser, const FaultDecision& decision, bool keep_alive);
  awaitable<void> pump_lines(ResponseParser& parser, const StreamPlan& plan, LineQueue& queue);
  awaitable<void> deliver_lines(LineQueue& queue);
  awaitable<void> watch_client_eof();

  void push(LineQueue& queue, LineQueue::Kind kind, std::string data, Clock::time_point due) {
    queue.bytes += data.size();
    queue.items.push_back(LineQueue::Item{due, kind, std::move(data)});
    wake_.cancel();
  }

  /// The streamed answer is complete: stop watching the client for a close (the writes
  /// are done, so the wait is the only operation the cancel ends).
  void end_stream() {
    stream_done_ = true;
    beast::error_code ec;
    client_.cancel(ec);
  }

  void close_upstream() {
    beast::error_code ec;
    upstream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    upstream_.close();
    upstream_open_ = false;
    upstream_buffer_.clear();
  }

  void close_now(bool abort) {
    if (closed_) return;
    closed_ = true;
    beast::error_code ec;
    if (abort) client_.set_option(asio::socket_base::linger(true, 0), ec);
    client_.close(ec);
    upstream_.close();
    upstream_open_ = false;
    timer_.cancel();
    wake_.cancel();
    space_.cancel();
  }

  ProxyContext& ctx_;
  const std::uint64_t id_;
  tcp::socket client_;
  beast::tcp_stream upstream_;
  beast::flat_buffer client_buffer_;
  beast::flat_buffer upstream_buffer_;
  asio::steady_timer timer_;      // delay faults
  asio::steady_timer wake_;       // wakes the line writer (new line, or one became due)
  asio::steady_timer space_;      // wakes the line reader (the writer made room)
  bool upstream_open_ = false;
  bool closed_ = false;
  bool stream_done_ = false;
  std::string method_;
  std::string target_;
};

awaitable<void> Session::run(std::shared_ptr<Session> keep_alive) {
  (void)keep_alive;
  try {
    beast::error_code ec;
    client_.set_option(tcp::no_delay(true), ec);
    while (!closed_) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(kHeaderLimit);
      parser.body_limit(boost::none);
      auto [read_error, n] = co_await http::async_read(client_, client_buffer_, parser, use_tuple);
      (void)n;
      // The client closed, reset, or sent something that is not HTTP/1.1: the connection ends.
      if (read_error || closed_) break;
      Request request = parser.release();
      if (!co_await serve(request)) break;
    }
  } catch (const std::exception& e) {
    ctx_.note("connection " + std::to_string(id_) + " failed: " + e.what());
  }
  close_now(false);
}

awaitable<bool> Session::serve(Request& request) {
  ctx_.count_request();
  method_ = std::string(request.method_string());
  target_ = std::string(request.target());
  const auto at = ctx_.elapsed();
  if (auto rule = ctx_.decider().blackout_at(at)) {
    ctx_.record_fault(*rule, FaultKind::blackout, method_, target_, "request during an outage: connection reset");
    close_now(true);
    co_return false;
  }
  const FaultDecision decision = ctx_.decider().decide(method_, target_, at);
  if (decision.delay) {
    const auto delay = decision.delay.rule->delay;
    ctx_.record_fault(decision.delay.index, FaultKind::delay, method_, target_,
                      "held " + std::to_string(delay.count()) + "ms before forwarding");
    timer_.expires_after(delay);
    co_await timer_.async_wait(use_tuple);
    if (closed_) co_return false;
  }
  const bool keep_alive = request.keep_alive();
  if (decision.terminal) {
    const FaultRule& rule = *decision.terminal.rule;
    const std::size_t index = decision.terminal.index;
    if (rule.kind == FaultKind::reset_before) {
      ctx_.record_fault(index, rule.kind, method_, target_, "connection reset, request not forwarded");
      close_now(true);
      co_return false;
    }
    if (rule.kind == FaultKind::status) {
      std::optional<int> retry_after = rule.retry_after_seconds;
      if (!retry_after && rule.status == 429) retry_after = 1;
      const std::string reason = rule.reason.empty() ? std::string(status_reason_for(rule.status)) : rule.reason;
      const std::string message = !rule.message.empty()
                                      ? rule.message
                                      : "injected by kueuepp-fault-proxy (rule " + std::to_string(index) + "): " +
                                            reason;
      ctx_.record_fault(index, rule.kind, method_, target_, "answered " + std::to_string(rule.status) + " " + reason);
      co_return co_await answer_status(rule.status, reason, message, retry_after, keep_alive);
    }
    if (rule.kind == FaultKind::watch_gone && rule.gone_mode == WatchGoneMode::answer) {
      ctx_.record_fault(index, rule.kind, method_, target_, "watch answered 410 Expired");
      co_return co_await answer_status(410, "Expired", "too old resource version", std::nullopt, keep_alive);
    }
  }
  co_return co_await forward(request, decision);
}

awaitable<bool> Session::answer_status(int code, std::string_view reason, std::string_view message,
                                       std::optional<int> retry_after, bool keep_alive) {
  http::response<http::string_body> response{static_cast<http::status>(code), 11};
  response.set(http::field::content_type, "application/json");
  if (retry_after) response.set(http::field::retry_after, std::to_string(*retry_after));
  response.body() = status_json(code, reason, message, retry_after);
  response.keep_alive(keep_alive);
  response.prepare_payload();
  auto [ec, n] = co_await http::async_write(client_, response, use_tuple);
  (void)n;
  co_return !ec && keep_alive && !closed_;
}

awaitable<bool> Session::forward(Request& request, const FaultDecision& decision) {
  std::optional<ResponseParser> parser;
  bool counted = false;
  for (int attempt = 0;; ++attempt) {
    const bool reused = upstream_open_;
    if (!upstream_open_) {
      upstream_buffer_.clear();
      upstream_.expires_after(ctx_.options().connect_timeout);
      auto [connect_error, endpoint] = co_await upstream_.async_connect(ctx_.upstream(), use_tuple);
      (void)endpoint;
      upstream_.expires_never();
      if (closed_) co_return false;
      if (connect_error) {
        ctx_.upstream_error(method_, target_, "cannot connect: " + connect_error.message() + "; client reset");
        close_now(true);
        co_return false;
      }
      beast::error_code ec;
      upstream_.socket().set_option(tcp::no_delay(true), ec);
      upstream_open_ = true;
    }
    auto [write_error, written] = co_await http::async_write(upstream_, request, use_tuple);
    (void)written;
    if (closed_) co_return false;
    beast::error_code error = write_error;
    if (!error) {
      if (!counted) ctx_.count_forwarded();
      counted = true;
      parser.emplace();
      parser->header_limit(kHeaderLimit);
      parser->body_limit(boost::none);
      if (request.method() == http::verb::head) parser->skip(true);
      auto [read_error, n] = co_await http::async_read_header(upstream_, upstream_buffer_, *parser, use_tuple);
      (void)n;
      if (closed_) co_return false;
      if (!read_error) break;
      error = read_error;
    }
    const bool nothing_back = !parser || !parser->got_some();
    close_upstream();
    // A kept-alive upstream connection the server closed while idle fails the first write
    // or read: that request never reached the server, so it goes again on a new one.
    if (reused && attempt == 0 && nothing_back) continue;
    ctx_.upstream_error(method_, target_, "no answer: " + error.message() + "; client reset");
    close_now(true);
    co_return false;
  }

  const bool keep_alive = request.keep_alive();
  const int code = parser->get().result_int();
  const bool watch = is_watch_target(target_);
  if (decision.terminal && decision.terminal.rule->kind == FaultKind::drop_answer) {
    co_return co_await drop_answer(*parser, decision.terminal.index);
  }
  const bool ends_stream = decision.terminal && (decision.terminal.rule->kind == FaultKind::cut_watch_after ||
                                                 decision.terminal.rule->kind == FaultKind::watch_gone);
  if (watch && code == 200 && (decision.lag || ends_stream)) {
    co_return co_await relay_lines(*parser, decision, keep_alive);
  }
  co_return co_await relay(*parser, keep_alive);
}

awaitable<bool> Session::drop_answer(ResponseParser& parser, std::size_t rule) {
  const int code = parser.get().result_int();
  // Read the whole answer so that the server has surely finished the request; a watch
  // never finishes, so its answer's head is enough.
  if (!is_watch_target(target_)) {
    std::vector<char> sink(kReadChunk);
    while (!parser.is_done() && !closed_) {
      parser.get().body().data = sink.data();
      parser.get().body().size = sink.size();
      auto [ec, n] = co_await http::async_read_some(upstream_, upstream_buffer_, parser, use_tuple);
      (void)n;
      if (ec && ec != http::error::need_buffer) break;
    }
  }
  if (closed_) co_return false;
  ctx_.record_fault(rule, FaultKind::drop_answer, method_, target_,
                    "server answered " + std::to_string(code) + ", answer dropped, client reset");
  close_now(true);
  co_return false;
}

awaitable<bool> Session::relay(ResponseParser& parser, bool keep_alive) {
  using namespace asio::experimental::awaitable_operators;
  const auto& head = parser.get();
  Framing framing = Framing::chunked;
  if (parser.is_done()) {
    framing = Framing::none;
  } else if (!parser.chunked() && parser.content_length()) {
    framing = Framing::length;
  }
  const std::string text = response_head(head, framing, parser.content_length().value_or(0), keep_alive);
  auto [ec, n] = co_await asio::async_write(client_, asio::buffer(text), use_tuple);
  (void)n;
  if (ec || closed_) {
    close_now(false);
    co_return false;
  }
  bool ok = true;
  if (framing == Framing::length) {
    co_await relay_body(parser, framing, ok);
  } else if (framing == Framing::chunked) {
    // A stream (a watch) may run for hours: notice a client that goes away meanwhile, so
    // that its upstream watch ends as it would without the proxy.
    stream_done_ = false;
    co_await (relay_body(parser, framing, ok) && watch_client_eof());
  }
  if (!ok || closed_) {
    close_now(false);
    co_return false;
  }
  if (!parser.is_done() || !parser.keep_alive()) close_upstream();
  co_return keep_alive;
}

awaitable<void> Session::relay_body(ResponseParser& parser, Framing framing, bool& ok) {
  std::vector<char> buffer(kReadChunk);
  std::string frame;
  while (!parser.is_done() && !closed_) {
    parser.get().body().data = buffer.data();
    parser.get().body().size = buffer.size();
    auto [read_error, n] = co_await http::async_read_some(upstream_, upstream_buffer_, parser, use_tuple);
    (void)n;
    const std::size_t got = buffer.size() - parser.get().body().size;
    if (got != 0 && !closed_) {
      frame.clear();
      if (framing == Framing::chunked) append_chunk(frame, std::string_view(buffer.data(), got));
      const auto out = framing == Framing::chunked ? asio::buffer(frame) : asio::buffer(buffer.data(), got);
      auto [write_error, written] = co_await asio::async_write(client_, out, use_tuple);
      (void)written;
      if (write_error) {
        ok = false;
        break;
      }
    }
    if (read_error && read_error != http::error::need_buffer) {
      if (!closed_) ctx_.upstream_error(method_, target_, "answer cut: " + read_error.message());
      ok = false;
      break;
    }
  }
  if (ok && !closed_ && framing == Framing::chunked) {
    auto [ec, n] = co_await asio::async_write(client_, asio::buffer(std::string_view("0\r\n\r\n")), use_tuple);
    (void)n;
    ok = !ec;
  }
  ok = ok && !closed_;
  if (!ok) close_now(false);
  end_stream();
}

awaitable<void> Session::watch_client_eof() {
  while (!stream_done_ && !closed_) {
    auto [ec] = co_await client_.async_wait(tcp::socket::wait_read, use_tuple);
    if (stream_done_ || closed_ || ec) co_return;
    char byte;
    const ssize_t n = ::recv(client_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) co_return;  // the client sent its next request early: leave it to the reader
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    close_now(false);
    co_return;
  }
}

awaitable<bool> Session::relay_lines(ResponseParser& parser, const FaultDecision& decision, bool keep_alive) {
  using namespace asio::experimental::awaitable_operators;
  StreamPlan plan;
  if (decision.lag) {
    plan.lag = decision.lag.rule->delay;
    ctx_.record_fault(decision.lag.index, FaultKind::lag_watch, method_, target_,
                      "every event held " + std::to_string(plan.lag.count()) + "ms");
  }
  if (decision.terminal) {
    const FaultRule& rule = *decision.terminal.rule;
    if (rule.kind == FaultKind::cut_watch_after || rule.kind == FaultKind::watch_gone) {
      plan.end_after = rule.events;
      plan.gone = rule.kind == FaultKind::watch_gone;
      plan.rule = decision.terminal.index;
    }
  }
  const std::string text = response_head(parser.get(), Framing::chunked, 0, keep_alive);
  auto [ec, n] = co_await asio::async_write(client_, asio::buffer(text), use_tuple);
  (void)n;
  if (ec || closed_) {
    close_now(false);
    co_return false;
  }
  LineQueue queue;
  stream_done_ = false;
  co_await (pump_lines(parser, plan, queue) && deliver_lines(queue) && watch_client_eof());
  if (!queue.ended_cleanly || closed_) {
    close_now(false);
    co_return false;
  }
  if (!parser.is_done() || !parser.keep_alive()) close_upstream();
  co_return keep_alive;
}

awaitable<void> Session::pump_lines(ResponseParser& parser, const StreamPlan& plan, LineQueue& queue) {
  WatchLineSplitter splitter;
  std::vector<std::string> lines;
  std::vector<char> buffer(kReadChunk);
  std::uint64_t events = 0;
  auto end_by_fault = [&] {
    const auto due = Clock::now() + plan.lag;
    if (plan.gone) {
      push(queue, LineQueue::Kind::line, gone_watch_event_line(), due);
      ctx_.record_fault(plan.rule, FaultKind::watch_gone, method_, target_,
                        "ERROR 410 Expired event after " + std::to_string(events) + " events, stream ended");
    } else {
      ctx_.record_fault(plan.rule, FaultKind::cut_watch_after, method_, target_,
                        "stream ended after " + std::to_string(events) + " events");
    }
    push(queue, LineQueue::Kind::end, {}, due);
  };
  if (plan.end_after && *plan.end_after == 0) {
    end_by_fault();
    co_return;
  }
  while (!parser.is_done() && !closed_) {
    parser.get().body().data = buffer.data();
    parser.get().body().size = buffer.size();
    auto [read_error, n] = co_await http::async_read_some(upstream_, upstream_buffer_, parser, use_tuple);
    (void)n;
    if (closed_) break;
    const std::size_t got = buffer.size() - parser.get().body().size;
    lines.clear();
    splitter.feed(std::string_view(buffer.data(), got), lines);
    const auto due = Clock::now() + plan.lag;
    for (auto& line : lines) {
      const bool event = WatchLineSplitter::is_event(line);
      push(queue, LineQueue::Kind::line, std::move(line), due);
      if (event && plan.end_after && ++events == *plan.end_after) {
        end_by_fault();
        co_return;
      }
    }
    if (read_error && read_error != http::error::need_buffer) {
      ctx_.upstream_error(method_, target_, "watch cut by the server side: " + read_error.message());
      push(queue, LineQueue::Kind::abort, {}, due);
      co_return;
    }
    while (queue.bytes > kMaxQueuedBytes && !closed_) {
      space_.expires_at(Clock::time_point::max());
      co_await space_.async_wait(use_tuple);
    }
  }
  if (closed_) {
    push(queue, LineQueue::Kind::abort, {}, Clock::now());
    co_return;
  }
  const auto due = Clock::now() + plan.lag;
  if (std::string rest = splitter.take_rest(); !rest.empty()) push(queue, LineQueue::Kind::line, std::move(rest), due);
  push(queue, LineQueue::Kind::end, {}, due);
}

awaitable<void> Session::deliver_lines(LineQueue& queue) {
  std::string frames;
  for (;;) {
    if (closed_) break;
    if (queue.items.empty()) {
      wake_.expires_at(Clock::time_point::max());
      co_await wake_.async_wait(use_tuple);
      continue;
    }
    const auto now = Clock::now();
    if (queue.items.front().due > now) {
      wake_.expires_at(queue.items.front().due);
      co_await wake_.async_wait(use_tuple);
      continue;
    }
    frames.clear();
    bool end = false;
    bool abort = false;
    while (!queue.items.empty() && queue.items.front().due <= now && !end && !abort) {
      LineQueue::Item item = std::move(queue.items.front());
      queue.items.pop_front();
      queue.bytes -= item.data.size();
      if (item.kind == LineQueue::Kind::line) append_chunk(frames, item.data);
      end = item.kind == LineQueue::Kind::end;
      abort = item.kind == LineQueue::Kind::abort;
    }
    space_.cancel();
    if (end) frames += "0\r\n\r\n";
    if (!frames.empty()) {
      auto [ec, n] = co_await asio::async_write(client_, asio::buffer(frames), use_tuple);
      (void)n;
      if (ec || closed_) break;
    }
    if (end) queue.ended_cleanly = true;
    if (end || abort) break;
  }
  if (!queue.ended_cleanly) close_now(false);
  end_stream();
}

}  // namespace

void start_proxy_session(ProxyContext& context, tcp::socket client, std::uint64_t id) {
  auto session = std::make_shared<Session>(context, std::move(client), id);
  if (!context.add_connection(id, session)) {
    session->close(false);
    return;
  }
  session->start();
}

}  // namespace kueuepp::faults
