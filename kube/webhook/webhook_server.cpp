#include "kube/webhook/webhook_server.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <fmt/format.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kube/conversion/conversion_review.hpp"
#include "kube/tls/listen_endpoint.hpp"
#include "kube/tls/server_context.hpp"

namespace kueuepp::kube::webhook {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

std::string error_body(const std::string& uid, int code, std::string_view reason, std::string message) {
  return encode_admission_review(denied(uid, std::move(message), code, std::string(reason)));
}

}  // namespace

// Sessions point to the server without owning it: the io_context destroys the handlers
// that still hold sessions when it is destroyed, last of the members they use.
struct WebhookServer::Impl {
  WebhookServerOptions options;
  AdmissionHandler handler;

  mutable std::mutex context_mutex;
  std::shared_ptr<ssl::context> context;

  /// Replies may come after stop(): they post only while the io_context runs.
  std::mutex life_mutex;
  bool alive = true;
  std::condition_variable idle;  ///< in_flight reached 0 (under life_mutex)
  std::size_t in_flight = 0;     ///< requests handed to the handler and not yet answered on the wire

  std::atomic<std::size_t> open_connections{0};
  struct Counters {
    std::atomic<std::uint64_t> connections{0}, refused{0}, tls_failures{0}, requests{0}, answered{0}, timeouts{0},
        bad_requests{0}, conversions{0};
  } counters;
  std::atomic<bool> stopped{false};
  std::weak_ptr<Impl> life;  ///< this, for replies that may outlive it
  tcp::endpoint endpoint;    ///< as bound
  std::uint16_t port = 0;

  // Destroyed by stop() (acceptor first): the sessions still waiting in the io_context
  // are destroyed with it, which closes their connections.
  std::unique_ptr<asio::io_context> io = std::make_unique<asio::io_context>();
  std::unique_ptr<tcp::acceptor> acceptor = std::make_unique<tcp::acceptor>(*io);
  std::vector<std::thread> threads;

  ~Impl() {
    acceptor.reset();
    io.reset();
  }

  std::shared_ptr<ssl::context> current_context() const {
    std::lock_guard lock(context_mutex);
    return context;
  }

  void accept();
  void request_started() {
    std::lock_guard lock(life_mutex);
    ++in_flight;
  }
  void request_finished() {
    std::lock_guard lock(life_mutex);
    if (in_flight > 0 && --in_flight == 0) idle.notify_all();
  }
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<ssl::context> ctx, WebhookServer::Impl* server,
          std::weak_ptr<WebhookServer::Impl> server_life)
      : context_(std::move(ctx)),
        stream_(beast::tcp_stream(std::move(socket)), *context_),
        timer_(stream_.get_executor()),
        server_(server),
        server_life_(std::move(server_life)) {
    ++server_->open_connections;
  }
  ~Session() {
    if (counted_) server_->request_finished();
    --server_->open_connections;
  }

  void start() {
    beast::get_lowest_layer(stream_).expires_after(server_->options.handshake_timeout);
    stream_.async_handshake(ssl::stream_base::server,
                            [self = shared_from_this()](beast::error_code ec) { self->on_handshake(ec); });
  }

 private:
  void on_handshake(beast::error_code ec) {
    if (ec) {
      ++server_->counters.tls_failures;
      spdlog::debug("webhook: TLS handshake failed: {}", ec.message());
      return;
    }
    read();
  }

  // The header first: a ConversionReview may be far larger than an AdmissionReview (a
  // list converted at once), so the body's limit depends on the path.
  void read() {
    parser_.emplace();
    body_limit_ = std::max(server_->options.max_body_bytes, server_->options.max_conversion_body_bytes);
    parser_->body_limit(body_limit_);
    beast::get_lowest_layer(stream_).expires_after(server_->options.read_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return on_read(ec);
    std::string_view target(parser_->get().target().data(), parser_->get().target().size());
    const bool conversion = target.substr(0, target.find('?')) == conversion::kConversionWebhookPath;
    body_limit_ = conversion ? server_->options.max_conversion_body_bytes : server_->options.max_body_bytes;
    if (const auto length = parser_->content_length(); length && *length > body_limit_) return on_read(http::error::body_limit);
    parser_->body_limit(body_limit_);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code e, std::size_t) { self->on_read(e); });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == asio::ssl::error::stream_truncated) return;
    if (ec == http::error::body_limit) {
      ++server_->counters.bad_requests;
      respond(http::status::payload_too_large, false,
              error_body("", 413, "RequestEntityTooLarge",
                         fmt::format("the request body exceeds {} bytes", body_limit_)));
      return;
    }
    if (ec) {
      // A timeout or a broken connection: nobody to answer. A malformed request: say so.
      if (ec == beast::error::timeout || ec.category() != http::make_error_code(http::error::bad_target).category()) return;
      ++server_->counters.bad_requests;
      respond(http::status::bad_request, false, error_body("", 400, "BadRequest", "malformed HTTP request: " + ec.message()));
      return;
    }
    auto& request = parser_->get();
    keep_alive_ = request.keep_alive();
    std::string_view target(request.target().data(), request.target().size());
    std::string_view path = target.substr(0, target.find('?'));
    if (request.method() != http::verb::post) {
      ++server_->counters.bad_requests;
      respond(http::status::method_not_allowed, keep_alive_,
              error_body("", 405, "MethodNotAllowed", "admission webhooks are called with POST"));
      return;
    }
    if (path == conversion::kConversionWebhookPath) {
      serve_conversion(request.body());
      return;
    }
    const WebhookSpec* webhook = find_webhook(path);
    if (webhook == nullptr) {
      ++server_->counters.bad_requests;
      respond(http::status::not_found, keep_alive_,
              error_body("", 404, "NotFound", fmt::format("no webhook is served at {}", path)));
      return;
    }
    std::string body = std::move(request.body());
    auto decoded = decode_admission_review(body);
    if (!decoded) {
      ++server_->counters.bad_requests;
      respond(http::status::bad_request, keep_alive_,
              error_body(uid_of(body), 400, "BadRequest", "malformed AdmissionReview: " + decoded.error().message));
      return;
    }
    dispatch(*webhook, std::move(*decoded));
  }

  // Conversion is pure and needs no cache of the controller's: answered here, on the
  // server's thread, without the handler.
  void serve_conversion(const std::string& body) {
    auto answer = conversion::answer_conversion_review(body);
    if (answer.http_status != 200) {
      ++server_->counters.bad_requests;
      respond(static_cast<http::status>(answer.http_status), keep_alive_, std::move(answer.body), answer.content_type);
      return;
    }
    ++server_->counters.requests;
    ++server_->counters.conversions;
    server_->request_started();
    counted_ = true;
    ++server_->counters.answered;
    respond(http::status::ok, keep_alive_, std::move(answer.body));
  }

  void dispatch(const WebhookSpec& webhook, AdmissionRequest request) {
    ++server_->counters.requests;
    server_->request_started();
    counted_ = true;
    answered_ = false;
    timer_.expires_after(server_->options.answer_timeout);
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || self->answered_) return;
      ++self->server_->counters.timeouts;
      self->answered_ = true;
      self->respond(http::status::internal_server_error, false,
                    error_body("", 500, "InternalError", "the controller did not answer in time"));
    });
    // The reply owns nothing: the answer timer keeps the session alive meanwhile, and a
    // reply after the server stopped is dropped.
    auto executor = stream_.get_executor();
    AdmissionReply reply = [session = weak_from_this(), server = server_life_, executor](AdmissionResponse response) {
      // In this order: the lock goes first, then the session (whose destructor locks),
      // then the server it points to.
      auto s = server.lock();
      auto self = session.lock();
      if (!s || !self) return;
      std::lock_guard lock(s->life_mutex);
      if (!s->alive) return;
      asio::post(executor, [self, response = std::move(response)]() mutable { self->on_answer(std::move(response)); });
    };
    try {
      server_->handler(webhook, std::move(request), std::move(reply));
    } catch (const std::exception& e) {
      spdlog::error("webhook {}: the handler failed: {}", webhook.name, e.what());
    }
  }

  void on_answer(AdmissionResponse response) {
    if (answered_) return;  // too late: the timeout answered
    answered_ = true;
    timer_.cancel();
    ++server_->counters.answered;
    respond(http::status::ok, keep_alive_, encode_admission_review(response));
  }

  void respond(http::status status, bool keep_alive, std::string body, std::string_view content_type = "application/json") {
    response_.emplace();
    response_->version(11);
    response_->result(status);
    response_->set(http::field::content_type, content_type);
    response_->keep_alive(keep_alive);
    response_->body() = std::move(body);
    response_->prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(server_->options.write_timeout);
    http::async_write(stream_, *response_, [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
      if (self->counted_) {  // the request is answered on the wire: stop() need not wait for it
        self->counted_ = false;
        self->server_->request_finished();
      }
      if (ec) return;
      if (keep_alive) {
        self->read();
      } else {
        self->close();
      }
    });
  }

  void close() {
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(1));
    stream_.async_shutdown([self = shared_from_this()](beast::error_code) {
      beast::error_code ignored;
      beast::get_lowest_layer(self->stream_).socket().close(ignored);
    });
  }

  std::shared_ptr<ssl::context> context_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::uint64_t body_limit_ = 0;  ///< the current request's (it depends on the path)
  std::optional<http::response<http::string_body>> response_;
  WebhookServer::Impl* server_;
  std::weak_ptr<WebhookServer::Impl> server_life_;
  bool keep_alive_ = false;
  bool counted_ = false;
  bool answered_ = true;
};

}  // namespace

void WebhookServer::Impl::accept() {
  acceptor->async_accept(asio::make_strand(*io), [self = this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (!self->stopped && ec != asio::error::operation_aborted) self->accept();
      return;
    }
    auto ctx = self->current_context();
    if (!ctx || self->open_connections.load() >= self->options.max_connections) {
      ++self->counters.refused;
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      ++self->counters.connections;
      std::make_shared<Session>(std::move(socket), std::move(ctx), self, self->life)->start();
    }
    self->accept();
  });
}

WebhookServer::WebhookServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
WebhookServer::~WebhookServer() { stop(); }

Expected<std::unique_ptr<WebhookServer>> WebhookServer::start(WebhookServerOptions options, AdmissionHandler handler) {
  const std::string listen = options.listen;
  auto endpoint = tls::parse_listen_endpoint(listen);
  if (!endpoint) return fail("webhook listen address " + endpoint.error().message);
  auto impl = std::make_shared<Impl>();
  impl->life = impl;
  impl->options = std::move(options);
  if (impl->options.threads == 0) impl->options.threads = 1;
  impl->handler = std::move(handler);
  if (auto open = tls::open_listening(*impl->acceptor, *endpoint); !open) {
    return fail("the webhook server cannot listen on " + listen + ": " + open.error().message);
  }
  boost::system::error_code ec;
  impl->endpoint = impl->acceptor->local_endpoint(ec);
  impl->port = impl->endpoint.port();
  impl->accept();
  for (std::size_t i = 0; i < impl->options.threads; ++i) {
    impl->threads.emplace_back([raw = impl.get()] { raw->io->run(); });
  }
  return std::unique_ptr<WebhookServer>(new WebhookServer(std::move(impl)));
}

Status WebhookServer::set_certificate(const std::string& cert_pem, const std::string& key_pem) {
  auto ctx = tls::make_server_context(cert_pem, key_pem, "the webhook");
  if (!ctx) return fail(ctx.error().message);
  std::lock_guard lock(impl_->context_mutex);
  impl_->context = std::move(*ctx);
  return {};
}

bool WebhookServer::has_certificate() const { return impl_->current_context() != nullptr; }

std::uint16_t WebhookServer::port() const { return impl_->port; }

std::string WebhookServer::address() const {
  if (impl_->port == 0) return {};
  const tcp::endpoint endpoint = impl_->endpoint;
  const auto addr = endpoint.address();
  return addr.is_v6() ? fmt::format("[{}]:{}", addr.to_string(), endpoint.port())
                      : fmt::format("{}:{}", addr.to_string(), endpoint.port());
}

WebhookServerStats WebhookServer::stats() const {
  const auto& c = impl_->counters;
  return WebhookServerStats{c.connections.load(), c.refused.load(), c.tls_failures.load(), c.requests.load(),
                            c.answered.load(),    c.timeouts.load(), c.bad_requests.load(), c.conversions.load()};
}

void WebhookServer::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  asio::post(*impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor->close(ignored);
  });
  {
    std::unique_lock lock(impl_->life_mutex);
    impl_->idle.wait_for(lock, impl_->options.stop_grace, [&] { return impl_->in_flight == 0; });
    impl_->alive = false;  // later replies are dropped, never posted to a stopped io_context
  }
  impl_->io->stop();
  for (auto& t : impl_->threads) {
    if (t.joinable()) t.join();
  }
  impl_->threads.clear();
  impl_->acceptor.reset();
  impl_->io.reset();  // closes the connections still open
}

}  // namespace kueuepp::kube::webhook
