#include "kube/serving/http_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <fmt/format.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kube/serving/connection.hpp"
#include "kube/tls/client_certificate.hpp"
#include "kube/tls/listen_endpoint.hpp"

namespace kueuepp::kube::serving {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

// Connections point to the server without owning it: stop() closes them all and
// destroys the io_context (and with it the handlers that still hold connections) before
// the server goes.
struct HttpServer::Impl {
  ServerOptions options;
  Handler handler;
  std::shared_ptr<Life> life = std::make_shared<Life>();

  std::mutex idle_mutex;
  std::condition_variable idle;  ///< in_flight reached 0
  std::size_t in_flight = 0;     ///< requests handed to the handler and not yet answered on the wire

  /// Every open connection, so that stop() can close those that wait on others (a
  /// handler's answer, a stream) and hold themselves alive meanwhile.
  std::mutex connections_mutex;
  std::map<Connection*, std::weak_ptr<Connection>> connections;

  struct Counters {
    std::atomic<std::uint64_t> connections{0}, refused{0}, tls_failures{0}, timeouts{0};
  } counters;
  std::atomic<std::size_t> open_connections{0};
  std::atomic<bool> stopped{false};
  tcp::endpoint endpoint;

  std::unique_ptr<asio::io_context> io = std::make_unique<asio::io_context>();
  std::unique_ptr<tcp::acceptor> acceptor = std::make_unique<tcp::acceptor>(*io);
  std::unique_ptr<asio::steady_timer> accept_retry = std::make_unique<asio::steady_timer>(*io);
  std::vector<std::thread> threads;

  void accept();
  void on_accept(beast::error_code ec, tcp::socket socket);

  void request_started() {
    std::lock_guard lock(idle_mutex);
    ++in_flight;
  }
  void request_finished() {
    std::lock_guard lock(idle_mutex);
    if (in_flight > 0 && --in_flight == 0) idle.notify_all();
  }
  void opened(const std::shared_ptr<Connection>& c) {
    ++open_connections;
    std::lock_guard lock(connections_mutex);
    connections.emplace(c.get(), c);
  }
  void closed(Connection* c) {
    --open_connections;
    std::lock_guard lock(connections_mutex);
    connections.erase(c);
  }
  Response error_response(int status, std::string message) const {
    if (options.error_response) return options.error_response(status, std::move(message));
    return Response{status, "text/plain", std::move(message) + "\n", {}, true};
  }
};

namespace {

/// One connection, plain (beast::tcp_stream) or TLS (beast::ssl_stream), on its strand.
template <class Stream>
class Session final : public Connection {
 public:
  Session(HttpServer::Impl* server, tcp::socket socket, std::shared_ptr<ssl::context> context)
      : context_(std::move(context)),
        stream_(make_stream(std::move(socket), context_.get())),
        answer_timer_(stream_.get_executor()),
        server_(server) {}

  ~Session() override {
    if (counted_) server_->request_finished();
    server_->closed(this);
  }

  void start() {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      read();
    } else {
      beast::get_lowest_layer(stream_).expires_after(server_->options.handshake_timeout);
      stream_.async_handshake(ssl::stream_base::server, [self = shared()](beast::error_code ec) {
        if (ec) {
          ++self->server_->counters.tls_failures;
          spdlog::debug("{}: TLS handshake failed: {}", self->server_->options.name, ec.message());
          return;
        }
        self->chain_ = tls::peer_chain_der(self->stream_.native_handle());
        self->read();
      });
    }
  }

  void post(std::function<void()> fn) override { asio::post(stream_.get_executor(), std::move(fn)); }

  void answer(const ExchangeState& exchange, Response response) override {
    if (&exchange != exchange_.get()) return;
    exchange_.reset();
    answer_timer_.cancel();
    write(std::move(response));
  }

  void restart_deadline(const ExchangeState& exchange, std::chrono::milliseconds timeout,
                        Response on_timeout) override {
    if (&exchange != exchange_.get()) return;
    arm_deadline(timeout, std::move(on_timeout));
  }

  void open_stream(const ExchangeState& exchange, std::string head) override {
    if (&exchange != exchange_.get()) return;
    exchange_.reset();
    answer_timer_.cancel();
    finish_request();
    streaming_ = true;
    stream_send(std::move(head), {});
  }

  void stream_send(std::string bytes, std::function<void(bool)> then) override {
    if (!streaming_) return;
    queue_.push_back(Pending{std::move(bytes), std::move(then)});
    if (queue_.size() == 1) write_next();
  }

  void stream_after(std::chrono::milliseconds delay, std::function<void()> fn) override {
    if (!streaming_) return;
    auto timer = std::make_shared<asio::steady_timer>(stream_.get_executor());
    timer->expires_after(delay);
    timer->async_wait([self = shared(), timer, fn = std::move(fn)](beast::error_code ec) {
      if (!ec && self->streaming_) fn();
    });
  }

  void stream_close() override {
    if (!streaming_) return;
    streaming_ = false;
    queue_.clear();
    shut_down();
  }

  bool stream_open() const override { return streaming_; }

  void close_now() override {
    streaming_ = false;
    exchange_.reset();
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().close(ignored);
    self_.reset();
  }

 private:
  struct Pending {
    std::string bytes;
    std::function<void(bool)> then;
  };

  static Stream make_stream(tcp::socket socket, ssl::context* context) {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      return Stream(std::move(socket));
    } else {
      return Stream(beast::tcp_stream(std::move(socket)), *context);
    }
  }

  std::shared_ptr<Session> shared() { return std::static_pointer_cast<Session>(shared_from_this()); }

  void read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_->options.max_header_bytes));
    parser_->body_limit(server_->options.max_body_bytes);
    beast::get_lowest_layer(stream_).expires_after(server_->options.read_timeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = shared()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  // The header first: the body's limit may depend on the path.
  void on_header(beast::error_code ec) {
    if (ec) return on_read(ec);
    std::string_view target(parser_->get().target().data(), parser_->get().target().size());
    body_limit_ = server_->options.max_body_bytes;
    if (server_->options.body_limit) {
      body_limit_ = std::min(body_limit_, server_->options.body_limit(target.substr(0, target.find('?'))));
    }
    if (const auto length = parser_->content_length(); length && *length > body_limit_) {
      return on_read(bhttp::error::body_limit);
    }
    parser_->body_limit(body_limit_);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared()](beast::error_code e, std::size_t) { self->on_read(e); });
  }

  void on_read(beast::error_code ec) {
    if (ec == bhttp::error::header_limit) {
      return write(server_->error_response(
          431, fmt::format("the request header exceeds {} bytes", server_->options.max_header_bytes)));
    }
    if (ec == bhttp::error::body_limit) {
      return write(server_->error_response(413, fmt::format("the request body exceeds {} bytes", body_limit_)));
    }
    if (ec) {
      // Gone, timed out or cut short: nobody to answer. A malformed request: say so.
      if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message ||
          ec.category() != bhttp::make_error_code(bhttp::error::bad_target).category()) {
        return;
      }
      return write(server_->error_response(400, "malformed HTTP request: " + ec.message()));
    }
    beast::get_lowest_layer(stream_).expires_never();
    auto& message = parser_->get();
    keep_alive_ = message.keep_alive();
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    for (const auto& field : message) {
      request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    request.body = std::move(message.body());
    request.peer_chain_der = chain_;
    server_->request_started();
    counted_ = true;
    exchange_ = std::make_shared<ExchangeState>();
    self_ = shared();  // held while others answer; stop() lets go
    if (server_->options.answer_timeout.count() > 0) {
      arm_deadline(server_->options.answer_timeout, server_->options.timeout_response);
    }
    Reply reply(weak_from_this(), server_->life, exchange_);
    try {
      server_->handler(std::move(request), std::move(reply));
    } catch (const std::exception& e) {
      spdlog::error("{}: the handler failed: {}", server_->options.name, e.what());
    }
  }

  void arm_deadline(std::chrono::milliseconds timeout, Response on_timeout) {
    answer_timer_.expires_after(timeout);
    answer_timer_.async_wait([self = shared(), exchange = exchange_, on_timeout = std::move(on_timeout)](
                                 beast::error_code ec) mutable {
      if (ec || exchange != self->exchange_ || exchange->answered.exchange(true)) return;
      ++self->server_->counters.timeouts;
      self->answer(*exchange, std::move(on_timeout));
    });
  }

  void finish_request() {
    if (!counted_) return;
    counted_ = false;
    server_->request_finished();
  }

  void write(Response answer) {
    const bool keep_alive = keep_alive_ && !answer.close;
    response_.emplace();
    response_->version(11);
    response_->result(static_cast<unsigned>(answer.status));
    response_->set(bhttp::field::content_type, answer.content_type);
    for (const auto& [name, value] : answer.headers) response_->set(name, value);
    response_->keep_alive(keep_alive);
    response_->body() = std::move(answer.body);
    response_->prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(server_->options.write_timeout);
    auto self = shared();
    self_.reset();  // the write holds the connection now
    bhttp::async_write(stream_, *response_, [self, keep_alive](beast::error_code ec, std::size_t) {
      self->finish_request();  // answered on the wire: stop() need not wait for it
      if (ec) return;
      if (keep_alive) {
        self->read();
      } else {
        self->shut_down();
      }
    });
  }

  void write_next() {
    beast::get_lowest_layer(stream_).expires_after(server_->options.write_timeout);
    auto bytes = asio::buffer(queue_.front().bytes);
    asio::async_write(stream_, bytes, [self = shared()](beast::error_code ec, std::size_t) {
      if (!self->streaming_) return;
      auto then = std::move(self->queue_.front().then);
      self->queue_.pop_front();
      if (ec) self->stream_close();
      if (then) then(!ec);
      if (!ec && !self->queue_.empty()) self->write_next();
    });
  }

  void shut_down() {
    self_.reset();
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    } else {
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(1));
      stream_.async_shutdown([self = shared()](beast::error_code) {
        beast::error_code ignored;
        beast::get_lowest_layer(self->stream_).socket().close(ignored);
      });
    }
  }

  std::shared_ptr<ssl::context> context_;  ///< TLS: outlives the stream that uses it
  Stream stream_;
  asio::steady_timer answer_timer_;
  HttpServer::Impl* server_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::uint64_t body_limit_ = 0;
  std::optional<bhttp::response<bhttp::string_body>> response_;
  std::vector<std::string> chain_;
  std::shared_ptr<ExchangeState> exchange_;  ///< the request being answered
  std::shared_ptr<Session> self_;            ///< while a handler or a stream holds the connection
  std::deque<Pending> queue_;
  bool keep_alive_ = false;
  bool counted_ = false;
  bool streaming_ = false;
};

using PlainSession = Session<beast::tcp_stream>;
using TlsSession = Session<beast::ssl_stream<beast::tcp_stream>>;

}  // namespace

void HttpServer::Impl::accept() {
  acceptor->async_accept(asio::make_strand(*io),
                         [this](beast::error_code ec, tcp::socket socket) { on_accept(ec, std::move(socket)); });
}

void HttpServer::Impl::on_accept(beast::error_code ec, tcp::socket socket) {
  if (stopped || ec == asio::error::operation_aborted) return;
  if (ec) {
    // Out of descriptors, say: try again shortly rather than spin.
    spdlog::warn("{}: accept failed: {}", options.name, ec.message());
    accept_retry->expires_after(std::chrono::milliseconds(100));
    accept_retry->async_wait([this](beast::error_code e) {
      if (!e && !stopped) accept();
    });
    return;
  }
  // Answers are written in a few segments: without this, Nagle's algorithm holds the
  // last one back until the client's delayed ACK.
  beast::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::shared_ptr<ssl::context> context;
  if (options.tls) context = options.tls();
  if (open_connections.load() >= options.max_connections || (options.tls && !context)) {
    ++counters.refused;
    socket.close(ignored);
  } else if (context) {
    ++counters.connections;
    auto session = std::make_shared<TlsSession>(this, std::move(socket), std::move(context));
    opened(session);
    session->start();
  } else {
    ++counters.connections;
    auto session = std::make_shared<PlainSession>(this, std::move(socket), nullptr);
    opened(session);
    session->start();
  }
  accept();
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() { stop(); }

Expected<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& listen, ServerOptions options,
                                                        Handler handler) {
  auto endpoint = tls::parse_listen_endpoint(listen);
  if (!endpoint) return unexpected(endpoint.error());
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  if (impl->options.threads == 0) impl->options.threads = 1;
  impl->handler = std::move(handler);
  if (auto open = tls::open_listening(*impl->acceptor, *endpoint); !open) {
    return fail("cannot listen on " + listen + ": " + open.error().message);
  }
  boost::system::error_code ec;
  impl->endpoint = impl->acceptor->local_endpoint(ec);
  impl->accept();
  for (std::size_t i = 0; i < impl->options.threads; ++i) {
    impl->threads.emplace_back([raw = impl.get()] { raw->io->run(); });
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

std::uint16_t HttpServer::port() const { return impl_->endpoint.port(); }

std::string HttpServer::address() const {
  const auto addr = impl_->endpoint.address();
  return addr.is_v6() ? fmt::format("[{}]:{}", addr.to_string(), impl_->endpoint.port())
                      : fmt::format("{}:{}", addr.to_string(), impl_->endpoint.port());
}

ServerStats HttpServer::stats() const {
  const auto& c = impl_->counters;
  return ServerStats{c.connections.load(), c.refused.load(), c.tls_failures.load(), c.timeouts.load(),
                     impl_->open_connections.load()};
}

void HttpServer::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  asio::post(*impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor->close(ignored);
    impl->accept_retry->cancel();
  });
  if (impl_->options.stop_grace.count() > 0) {
    std::unique_lock lock(impl_->idle_mutex);
    impl_->idle.wait_for(lock, impl_->options.stop_grace, [&] { return impl_->in_flight == 0; });
  }
  {
    std::lock_guard lock(impl_->life->mutex);
    impl_->life->alive = false;  // later answers are dropped, never posted to a stopped io_context
  }
  impl_->io->stop();
  for (auto& t : impl_->threads) {
    if (t.joinable()) t.join();
  }
  impl_->threads.clear();
  // The threads are gone: close every connection here, then destroy the handlers that
  // still hold some with the io_context.
  std::vector<std::shared_ptr<Connection>> open;
  {
    std::lock_guard lock(impl_->connections_mutex);
    for (auto& [raw, weak] : impl_->connections) {
      if (auto c = weak.lock()) open.push_back(std::move(c));
    }
  }
  for (auto& c : open) c->close_now();
  open.clear();
  impl_->accept_retry.reset();
  impl_->acceptor.reset();
  impl_->io.reset();
}

}  // namespace kueuepp::kube::serving
