#include "cmd/standalone/probe_server.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "cmd/standalone/server_sent_events.hpp"
#include "kube/serving/http_server.hpp"

namespace kueuepp::cmd {

namespace serving = kube::serving;

namespace {

using Answer = std::tuple<int, std::string, std::string>;

serving::Response text(int status, std::string body) {
  return serving::Response{status, "text/plain", std::move(body), {}, false};
}

}  // namespace

/// What serving needs, shared with the callbacks that may outlive the server (a gate's or
/// a handler's answer after stop()).
struct Probe : std::enable_shared_from_this<Probe> {
  ProbeHandler handler;
  ProbeServerOptions options;
  std::atomic<std::size_t> open_streams{0};

  /// The last answer of each stream source: streams of one source share it for a period,
  /// so N open pages cost one query a period, not N.
  struct SharedAnswer {
    std::chrono::steady_clock::time_point at;
    std::optional<Answer> answer;
  };
  std::mutex shared_mutex;
  std::map<std::string, SharedAnswer> shared_answers;

  /// The source's answer, asked at most once a period whatever the number of streams;
  /// `then` runs once, on any thread, with nothing if the handler does not answer.
  void ask_shared(const ProbeStream& stream, std::function<void(std::optional<Answer>)> then) {
    const auto now = std::chrono::steady_clock::now();
    {
      std::lock_guard lock(shared_mutex);
      auto it = shared_answers.find(stream.source);
      if (it != shared_answers.end() && now - it->second.at < stream.period) return then(it->second.answer);
    }
    auto store = [self = shared_from_this(), source = stream.source, now, then = std::move(then)](
                     int status, std::string type, std::string body) {
      Answer answer{status, std::move(type), std::move(body)};
      {
        std::lock_guard lock(self->shared_mutex);
        self->shared_answers[source] = SharedAnswer{now, answer};
      }
      then(std::move(answer));
    };
    handler(stream.source, std::move(store));
  }

  const ProbeStream* stream_at(std::string_view path) const {
    for (const auto& s : options.streams) {
      if (s.path == path) return &s;
    }
    return nullptr;
  }

  void serve(serving::Request request, serving::Reply reply);
  void answer(const std::string& target, serving::Reply reply);
  void open_stream(const ProbeStream& stream, const serving::Reply& reply);
};

namespace {

/// One event stream: every period it asks for its source (through the shared answers)
/// and sends the answer when it changed, or a comment when nothing was sent for
/// `keepalive`, which also finds a closed connection. It lives as long as the timers
/// and writes it waits on.
class EventStream : public std::enable_shared_from_this<EventStream> {
 public:
  EventStream(std::shared_ptr<Probe> server, const ProbeStream& stream, std::shared_ptr<serving::StreamSink> sink)
      : server_(std::move(server)),
        stream_(stream),
        sink_(std::move(sink)),
        last_write_(std::chrono::steady_clock::now()) {}
  ~EventStream() { --server_->open_streams; }

  /// Asks for the source; what comes first of its answer and the timeout is sent.
  void tick() {
    auto settled = std::make_shared<std::atomic<bool>>(false);
    auto settle = [self = shared_from_this(), settled](std::optional<Answer> answer) {
      if (settled->exchange(true)) return;
      self->sink_->run([self, answer = std::move(answer)]() mutable { self->on_answer(std::move(answer)); });
    };
    sink_->after(server_->options.timeout, [settle] { settle(std::nullopt); });
    server_->ask_shared(stream_, settle);
  }

 private:
  void on_answer(std::optional<Answer> answer) {
    const auto now = std::chrono::steady_clock::now();
    std::string bytes;
    if (answer && std::get<0>(*answer) == 200 && std::get<2>(*answer) != last_) {
      last_ = std::move(std::get<2>(*answer));
      bytes = sse_event(stream_.event, last_);
    } else if (now - last_write_ >= server_->options.keepalive) {
      bytes = sse_comment("keepalive");
    }
    auto next = [self = shared_from_this()] { self->sink_->after(self->stream_.period, [self] { self->tick(); }); };
    if (bytes.empty()) return next();
    last_write_ = now;
    sink_->send(std::move(bytes), [next](bool written) {
      if (written) next();
    });
  }

  std::shared_ptr<Probe> server_;
  const ProbeStream& stream_;
  std::shared_ptr<serving::StreamSink> sink_;
  std::string last_;
  std::chrono::steady_clock::time_point last_write_;
};

}  // namespace

void Probe::open_stream(const ProbeStream& stream, const serving::Reply& reply) {
  if (++open_streams > options.max_streams) {
    --open_streams;
    serving::Response busy = text(503, "too many event streams; try again later\n");
    busy.headers.emplace_back("Retry-After", "5");
    busy.close = true;
    reply(std::move(busy));
    return;
  }
  auto sink = reply.stream(sse_response_head());
  std::make_shared<EventStream>(shared_from_this(), stream, std::move(sink))->tick();
}

/// The handler's answer for `target`, or a 503 when it does not come within the timeout.
void Probe::answer(const std::string& target, serving::Reply reply) {
  std::string path = target.substr(0, target.find('?'));
  if (const ProbeStream* stream = stream_at(path)) return open_stream(*stream, reply);
  handler(target, [reply = std::move(reply)](int status, std::string type, std::string body) {
    reply(serving::Response{status, std::move(type), std::move(body), {}, false});
  });
}

void Probe::serve(serving::Request request, serving::Reply reply) {
  if (request.method != "GET") {
    reply(text(405, "only GET is served here\n"));
    return;
  }
  if (!options.gate) return answer(request.target, std::move(reply));
  ProbeRequest asked{request.method, request.target, std::move(request.headers), std::move(request.peer_chain_der)};
  auto decide = [self = shared_from_this(), target = request.target,
                 reply = std::move(reply)](std::optional<ProbeRefusal> refusal) {
    if (refusal) {
      serving::Response refused{refusal->status, std::move(refusal->content_type), std::move(refusal->body), {}, false};
      if (refusal->status == 401) refused.headers.emplace_back("WWW-Authenticate", "Bearer");
      reply(std::move(refused));
      return;
    }
    reply.restart_deadline(self->options.timeout, text(503, "no answer within the timeout\n"));
    self->answer(target, reply);
  };
  options.gate(asked, std::move(decide));
}

struct ProbeServer::Impl {
  std::shared_ptr<Probe> probe;
  std::unique_ptr<serving::HttpServer> server;
};

ProbeServer::ProbeServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProbeServer::~ProbeServer() { stop(); }

Expected<std::unique_ptr<ProbeServer>> ProbeServer::start(const std::string& listen, ProbeHandler handler,
                                                          std::chrono::milliseconds timeout) {
  ProbeServerOptions options;
  options.timeout = timeout;
  return start(listen, std::move(handler), std::move(options));
}

Expected<std::unique_ptr<ProbeServer>> ProbeServer::start(const std::string& listen, ProbeHandler handler,
                                                          ProbeServerOptions options) {
  auto probe = std::make_shared<Probe>();
  probe->handler = std::move(handler);
  probe->options = std::move(options);
  serving::ServerOptions o;
  o.name = "probe server";
  o.max_connections = probe->options.max_connections;
  o.max_body_bytes = 64 * 1024;
  o.handshake_timeout = o.read_timeout = o.write_timeout = probe->options.io_timeout;
  o.answer_timeout = probe->options.timeout;
  o.timeout_response = probe->options.gate
                           ? text(503, "authentication or authorization did not answer within the timeout\n")
                           : text(503, "no answer within the timeout\n");
  o.tls = probe->options.tls;
  o.error_response = [](int status, std::string message) {
    return serving::Response{status, "text/plain", std::move(message) + "\n", {}, true};
  };
  auto server = serving::HttpServer::start(
      listen, std::move(o), [probe](serving::Request request, serving::Reply reply) {
        probe->serve(std::move(request), std::move(reply));
      });
  if (!server) return unexpected(server.error());
  auto impl = std::make_unique<Impl>();
  impl->probe = std::move(probe);
  impl->server = std::move(*server);
  return std::unique_ptr<ProbeServer>(new ProbeServer(std::move(impl)));
}

std::uint16_t ProbeServer::port() const { return impl_->server->port(); }

void ProbeServer::stop() {
  if (impl_ && impl_->server) impl_->server->stop();
}

}  // namespace kueuepp::cmd
