#include "cmd/standalone/probe_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "cmd/standalone/server_sent_events.hpp"
#include "kube/tls/client_certificate.hpp"
#include "kube/tls/listen_endpoint.hpp"

namespace kueuepp::cmd {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

/// One client connection, plain or TLS: what serving a request and a stream needs of it.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual error_code read(boost::beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser) = 0;
  virtual error_code write(const std::string& bytes) = 0;
  virtual error_code write(Response& response) = 0;
  virtual std::vector<std::string> peer_chain() { return {}; }
  virtual void close() = 0;
};

/// Plain HTTP on the accepting thread's blocking socket (loopback by default).
class PlainConnection final : public Connection {
 public:
  explicit PlainConnection(tcp::socket socket) : socket_(std::move(socket)) {}
  error_code read(boost::beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser) override {
    error_code ec;
    http::read(socket_, buffer, parser, ec);
    return ec;
  }
  error_code write(const std::string& bytes) override {
    error_code ec;
    asio::write(socket_, asio::buffer(bytes), ec);
    return ec;
  }
  error_code write(Response& response) override {
    error_code ec;
    http::write(socket_, response, ec);
    return ec;
  }
  void close() override {
    error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
  }

 private:
  tcp::socket socket_;
};

/// HTTPS on a thread of its own: each step runs on the connection's own io_context for
/// at most `timeout`, so a client that stalls (in the handshake, mid-request, or not
/// reading a stream) costs its slot for that long, never the server.
class TlsConnection final : public Connection {
 public:
  TlsConnection(tcp::socket accepted, std::shared_ptr<asio::ssl::context> context, std::chrono::milliseconds timeout)
      : context_(std::move(context)), stream_(tcp::socket(io_), *context_), timeout_(timeout) {
    error_code ec;
    const auto protocol = accepted.local_endpoint(ec).protocol();
    stream_.next_layer().assign(protocol, accepted.release(), ec);
  }
  error_code handshake() {
    error_code ec = within([&](auto done) { stream_.async_handshake(asio::ssl::stream_base::server, done); });
    if (!ec) chain_ = kube::tls::peer_chain_der(stream_.native_handle());
    return ec;
  }
  error_code read(boost::beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser) override {
    return within([&](auto done) { http::async_read(stream_, buffer, parser, done); });
  }
  error_code write(const std::string& bytes) override {
    return within([&](auto done) { asio::async_write(stream_, asio::buffer(bytes), done); });
  }
  error_code write(Response& response) override {
    return within([&](auto done) { http::async_write(stream_, response, done); });
  }
  std::vector<std::string> peer_chain() override { return chain_; }
  void close() override {
    error_code ec;
    stream_.next_layer().shutdown(tcp::socket::shutdown_both, ec);
    stream_.next_layer().close(ec);
  }
  /// Ends the step under way now (the server stops); safe from any thread.
  void interrupt() { io_.stop(); }

 private:
  /// Runs the asynchronous step `start` begins until it completes or `timeout_` passes;
  /// then the connection is closed and the step's error is timed_out.
  template <class Start>
  error_code within(Start start) {
    error_code result = asio::error::timed_out;
    bool done = false;
    start([&result, &done](error_code ec, auto&&...) {
      result = ec;
      done = true;
    });
    io_.restart();
    io_.run_for(timeout_);
    if (!done) {
      close();  // the pending step completes with an error, then the context is idle again
      io_.restart();
      io_.run();
      return asio::error::timed_out;
    }
    return result;
  }

  asio::io_context io_;
  std::shared_ptr<asio::ssl::context> context_;
  asio::ssl::stream<tcp::socket> stream_;
  std::chrono::milliseconds timeout_;
  std::vector<std::string> chain_;
};

}  // namespace

struct ProbeServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  ProbeHandler handler;
  ProbeServerOptions options;
  std::thread thread;
  std::atomic<bool> stopping{false};

  struct Stream {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
    std::shared_ptr<TlsConnection> tls;  ///< interrupted when the server stops
  };
  std::mutex streams_mutex;
  std::condition_variable streams_wake;  ///< wakes the streams when the server stops
  std::list<Stream> streams;

  using Answer = std::tuple<int, std::string, std::string>;

  /// The last answer of each stream source: streams of one source share it for a period,
  /// so N open pages cost one query a period, not N.
  struct SharedAnswer {
    std::chrono::steady_clock::time_point at;
    std::optional<Answer> answer;
  };
  std::mutex shared_mutex;
  std::map<std::string, SharedAnswer> shared_answers;

  /// The handler's answer for `target`, or nothing within the timeout.
  std::optional<Answer> ask(const std::string& target) {
    auto promise = std::make_shared<std::promise<Answer>>();
    auto answered = std::make_shared<std::atomic<bool>>(false);
    auto future = promise->get_future();
    handler(target, [promise, answered](int status, std::string type, std::string body) {
      if (answered->exchange(true)) return;
      promise->set_value({status, std::move(type), std::move(body)});
    });
    if (future.wait_for(options.timeout) != std::future_status::ready) return std::nullopt;
    return future.get();
  }

  /// The source's answer, asked at most once a period whatever the number of streams.
  std::optional<Answer> ask_shared(const ProbeStream& stream) {
    const auto now = std::chrono::steady_clock::now();
    {
      std::lock_guard lock(shared_mutex);
      auto it = shared_answers.find(stream.source);
      if (it != shared_answers.end() && now - it->second.at < stream.period) return it->second.answer;
    }
    auto answer = ask(stream.source);
    std::lock_guard lock(shared_mutex);
    shared_answers[stream.source] = SharedAnswer{now, answer};
    return answer;
  }

  const ProbeStream* stream_at(const std::string& path) const {
    for (const auto& s : options.streams) {
      if (s.path == path) return &s;
    }
    return nullptr;
  }

  /// Serves one event stream until the client goes or the server stops.
  void run_stream(Connection& connection, const ProbeStream& stream) {
    error_code ec = connection.write(sse_response_head());
    std::string last;
    auto last_write = std::chrono::steady_clock::now();
    while (!ec && !stopping) {
      auto answer = ask_shared(stream);
      const auto now = std::chrono::steady_clock::now();
      if (answer && std::get<0>(*answer) == 200 && std::get<2>(*answer) != last) {
        last = std::move(std::get<2>(*answer));
        ec = connection.write(sse_event(stream.event, last));
        last_write = now;
      } else if (now - last_write >= options.keepalive) {
        ec = connection.write(sse_comment("keepalive"));
        last_write = now;
      }
      std::unique_lock lock(streams_mutex);
      streams_wake.wait_for(lock, stream.period, [this] { return stopping.load(); });
    }
    connection.close();
  }

  /// Joins the threads whose work is over; the caller holds streams_mutex.
  void reap_streams() {
    for (auto it = streams.begin(); it != streams.end();) {
      if (*it->done) {
        it->thread.join();
        it = streams.erase(it);
      } else {
        ++it;
      }
    }
  }

  static void refuse_busy(Connection& connection, std::string_view what) {
    const std::string body = "too many " + std::string(what) + "; try again later\n";
    connection.write("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nRetry-After: 5\r\n"
                     "Connection: close\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n" + body);
    connection.close();
  }

  /// Hands a plain connection's stream to a thread of its own, or refuses it when
  /// `max_streams` run.
  void start_stream(std::unique_ptr<Connection> connection, const ProbeStream& stream) {
    std::lock_guard lock(streams_mutex);
    reap_streams();
    if (streams.size() >= options.max_streams) {
      refuse_busy(*connection, "event streams");
      return;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<Connection> shared(std::move(connection));
    streams.push_back(Stream{std::thread([this, shared, &stream, done] {
                               run_stream(*shared, stream);
                               *done = true;
                             }),
                             done, nullptr});
  }

  /// Serves an HTTPS connection on a thread of its own, or refuses it when `max_streams`
  /// threads run (its handshake is then not even tried).
  void start_tls(tcp::socket socket) {
    auto context = options.tls();
    if (!context) {
      spdlog::warn("probe server: no serving certificate yet; connection refused");
      return;
    }
    auto connection = std::make_shared<TlsConnection>(std::move(socket), std::move(context), options.io_timeout);
    std::lock_guard lock(streams_mutex);
    reap_streams();
    if (streams.size() >= options.max_streams) {
      connection->close();
      return;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    streams.push_back(Stream{std::thread([this, connection, done] {
                               if (error_code ec = connection->handshake(); ec) {
                                 spdlog::debug("probe server: TLS handshake failed: {}", ec.message());
                               } else {
                                 serve(*connection, true);
                               }
                               connection->close();
                               *done = true;
                             }),
                             done, connection});
  }

  void stop_streams() {
    {
      std::lock_guard lock(streams_mutex);
      streams_wake.notify_all();
    }
    std::list<Stream> running;
    {
      std::lock_guard lock(streams_mutex);
      running.swap(streams);
    }
    for (auto& s : running) {
      if (s.tls) s.tls->interrupt();
    }
    for (auto& s : running) {
      if (s.thread.joinable()) s.thread.join();
    }
  }

  /// The gate's decision on `request`: nullopt to serve it, else the refusal (a 503 when
  /// the gate does not answer within the timeout).
  std::optional<ProbeRefusal> pass_gate(Connection& connection, const Request& request) {
    if (!options.gate) return std::nullopt;
    ProbeRequest asked;
    asked.method = std::string(request.method_string());
    asked.target = std::string(request.target());
    for (const auto& field : request) asked.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    asked.peer_chain_der = connection.peer_chain();
    auto promise = std::make_shared<std::promise<std::optional<ProbeRefusal>>>();
    auto answered = std::make_shared<std::atomic<bool>>(false);
    auto future = promise->get_future();
    options.gate(asked, [promise, answered](std::optional<ProbeRefusal> refusal) {
      if (answered->exchange(true)) return;
      promise->set_value(std::move(refusal));
    });
    if (future.wait_for(options.timeout) != std::future_status::ready) {
      return ProbeRefusal{503, "text/plain", "authentication or authorization did not answer within the timeout\n"};
    }
    return future.get();
  }

  /// Answers one plain request on the accepting thread; a stream gets a thread of its own.
  void serve(std::unique_ptr<Connection> connection) {
    if (const ProbeStream* stream = serve(*connection, false)) start_stream(std::move(connection), *stream);
  }

  /// Answers one request on `connection`. `own_thread`: the connection has a thread of
  /// its own (HTTPS), so a stream it opens runs here; else the stream is returned, the
  /// connection left open for it.
  const ProbeStream* serve(Connection& connection, bool own_thread) {
    boost::beast::flat_buffer buffer;
    http::request_parser<http::string_body> parser;
    parser.body_limit(64 * 1024);
    error_code ec = connection.read(buffer, parser);
    Response res;
    res.version(11);
    res.keep_alive(false);
    auto answer = [&res](unsigned status, std::string type, std::string body) {
      res.result(status);
      res.set(http::field::content_type, type);
      res.body() = std::move(body);
    };
    if (ec) {
      if (ec == asio::error::timed_out || ec == http::error::end_of_stream) {
        connection.close();
        return nullptr;
      }
      answer(400, "text/plain", "malformed request: " + ec.message() + "\n");
    } else if (parser.get().method() != http::verb::get) {
      answer(405, "text/plain", "only GET is served here\n");
    } else if (auto refusal = pass_gate(connection, parser.get())) {
      answer(static_cast<unsigned>(refusal->status), std::move(refusal->content_type), std::move(refusal->body));
      if (refusal->status == 401) res.set(http::field::www_authenticate, "Bearer");
    } else {
      std::string target(parser.get().target());
      if (const ProbeStream* stream = stream_at(target.substr(0, target.find('?')))) {
        if (!own_thread) return stream;
        run_stream(connection, *stream);
        return nullptr;
      }
      if (auto reply = ask(target)) {
        auto [status, type, body] = std::move(*reply);
        answer(static_cast<unsigned>(status), std::move(type), std::move(body));
      } else {
        answer(503, "text/plain", "no answer within the timeout\n");
      }
    }
    res.prepare_payload();
    connection.write(res);
    connection.close();
    return nullptr;
  }

  void run() {
    while (!stopping) {
      boost::system::error_code ec;
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (ec) {
        if (stopping) return;
        continue;
      }
      if (stopping) return;  // the connection stop() makes to wake this thread
      if (options.tls) {
        start_tls(std::move(socket));
      } else {
        serve(std::make_unique<PlainConnection>(std::move(socket)));
      }
    }
  }
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
  auto endpoint = kube::tls::parse_listen_endpoint(listen);
  if (!endpoint) return unexpected(endpoint.error());
  auto impl = std::make_unique<Impl>();
  impl->handler = std::move(handler);
  impl->options = std::move(options);
  if (auto open = kube::tls::open_listening(impl->acceptor, *endpoint); !open) {
    return fail("cannot listen on " + listen + ": " + open.error().message);
  }
  auto* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<ProbeServer>(new ProbeServer(std::move(impl)));
}

std::uint16_t ProbeServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void ProbeServer::stop() {
  if (!impl_ || impl_->stopping.exchange(true)) return;
  boost::system::error_code ec;
  // Wake the blocking accept with a connection of our own.
  try {
    tcp::socket wake(impl_->io);
    wake.connect(impl_->acceptor.local_endpoint(), ec);
  } catch (...) {
  }
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->stop_streams();
  impl_->acceptor.close(ec);
}

}  // namespace kueuepp::cmd
