#include "kube/visibility/visibility_server.hpp"

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
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "kube/tls/client_certificate.hpp"
#include "kube/tls/listen_endpoint.hpp"
#include "kube/tls/server_context.hpp"

namespace kueuepp::kube::visibility {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

}  // namespace

/// Replies come from other threads (the controller's actors): they post to the io_context
/// only while it lives, checked under `mutex` (stop() clears `alive` before destroying it).
struct Life {
  std::mutex mutex;
  bool alive = true;
};

struct VisibilityServer::Impl {
  VisibilityServerOptions options;
  std::shared_ptr<Life> life = std::make_shared<Life>();
  RequestHandler handler;
  mutable std::mutex context_mutex;
  std::shared_ptr<ssl::context> context;
  std::atomic<std::size_t> open_connections{0};
  std::atomic<bool> stopped{false};
  std::uint16_t port = 0;
  std::unique_ptr<asio::io_context> io = std::make_unique<asio::io_context>();
  std::unique_ptr<tcp::acceptor> acceptor = std::make_unique<tcp::acceptor>(*io);
  std::thread thread;

  std::shared_ptr<ssl::context> current_context() const {
    std::lock_guard lock(context_mutex);
    return context;
  }
  void accept();
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<ssl::context> ctx, VisibilityServer::Impl* server)
      : context_(std::move(ctx)), stream_(beast::tcp_stream(std::move(socket)), *context_),
        timer_(stream_.get_executor()), server_(server) {
    ++server_->open_connections;
  }
  ~Session() { --server_->open_connections; }

  void start() {
    beast::get_lowest_layer(stream_).expires_after(server_->options.handshake_timeout);
    stream_.async_handshake(ssl::stream_base::server, [self = shared_from_this()](beast::error_code ec) {
      if (ec) {
        spdlog::debug("visibility: TLS handshake failed: {}", ec.message());
        return;
      }
      self->collect_chain();
      self->read();
    });
  }

 private:
  void collect_chain() { chain_ = tls::peer_chain_der(stream_.native_handle()); }

  void read() {
    parser_.emplace();
    parser_->body_limit(1024 * 1024);  // a what-if question carries a Job or Workload
    beast::get_lowest_layer(stream_).expires_after(server_->options.read_timeout);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec) return;  // closed, timed out or malformed: nobody to answer usefully
    auto& req = parser_->get();
    keep_alive_ = req.keep_alive();
    IncomingRequest in;
    in.method = std::string(req.method_string());
    in.target = std::string(req.target());
    for (const auto& field : req) in.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    in.peer_chain_der = chain_;
    in.body = std::move(req.body());
    answered_ = std::make_shared<std::atomic<bool>>(false);
    timer_.expires_after(server_->options.answer_timeout);
    timer_.async_wait([self = shared_from_this(), answered = answered_](beast::error_code tec) {
      if (tec || answered->exchange(true)) return;
      self->respond(Answer{504, status_timeout("the controller did not answer in time")});
    });
    auto executor = stream_.get_executor();
    Reply reply = [weak = weak_from_this(), answered = answered_, executor, life = server_->life](Answer a) {
      if (answered->exchange(true)) return;
      std::lock_guard lock(life->mutex);
      if (!life->alive) return;
      auto self = weak.lock();
      if (!self) return;
      asio::post(executor, [self, a = std::move(a)]() mutable {
        self->timer_.cancel();
        self->respond(std::move(a));
      });
    };
    try {
      server_->handler(std::move(in), std::move(reply));
    } catch (const std::exception& e) {
      spdlog::error("visibility: the handler failed: {}", e.what());
    }
  }

  void respond(Answer a) {
    response_.emplace();
    response_->version(11);
    response_->result(static_cast<unsigned>(a.status));
    response_->set(bhttp::field::content_type, a.body.starts_with("{") ? "application/json" : "text/plain");
    if (a.retry_after_seconds > 0) response_->set(bhttp::field::retry_after, std::to_string(a.retry_after_seconds));
    response_->keep_alive(keep_alive_);
    response_->body() = std::move(a.body);
    response_->prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(server_->options.write_timeout);
    bhttp::async_write(stream_, *response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (!ec && self->keep_alive_) self->read();
    });
  }

  std::shared_ptr<ssl::context> context_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  asio::steady_timer timer_;
  VisibilityServer::Impl* server_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::optional<bhttp::response<bhttp::string_body>> response_;
  std::vector<std::string> chain_;
  std::shared_ptr<std::atomic<bool>> answered_;
  bool keep_alive_ = false;
};

}  // namespace

void VisibilityServer::Impl::accept() {
  acceptor->async_accept(asio::make_strand(*io), [this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (!stopped && ec != asio::error::operation_aborted) accept();
      return;
    }
    auto ctx = current_context();
    // Answers are written in a few segments: without this, Nagle's algorithm holds the
    // last one back until the client's delayed ACK.
    beast::error_code nodelay_error;
    socket.set_option(tcp::no_delay(true), nodelay_error);
    if (ctx && open_connections.load() < options.max_connections) {
      std::make_shared<Session>(std::move(socket), std::move(ctx), this)->start();
    } else {
      beast::error_code ignored;
      socket.close(ignored);
    }
    accept();
  });
}

VisibilityServer::VisibilityServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
VisibilityServer::~VisibilityServer() { stop(); }

Expected<std::unique_ptr<VisibilityServer>> VisibilityServer::start(VisibilityServerOptions options,
                                                                    RequestHandler handler) {
  const std::string listen = options.listen;
  auto endpoint = tls::parse_listen_endpoint(listen);
  if (!endpoint) return fail("--visibility-listen " + endpoint.error().message);
  auto impl = std::make_shared<Impl>();
  impl->options = std::move(options);
  impl->handler = std::move(handler);
  if (auto open = tls::open_listening(*impl->acceptor, *endpoint); !open) {
    return fail("the visibility server cannot listen on " + listen + ": " + open.error().message);
  }
  boost::system::error_code ec;
  impl->port = impl->acceptor->local_endpoint(ec).port();
  impl->accept();
  impl->thread = std::thread([raw = impl.get()] { raw->io->run(); });
  return std::unique_ptr<VisibilityServer>(new VisibilityServer(std::move(impl)));
}

Status VisibilityServer::set_certificate(const std::string& cert_pem, const std::string& key_pem) {
  auto ctx = tls::make_server_context(cert_pem, key_pem, "the visibility server");
  if (!ctx) return fail(ctx.error().message);
  // The front-proxy CA may change while the server runs: the handler checks per request.
  tls::request_client_certificates((*ctx)->native_handle(), "");
  std::lock_guard lock(impl_->context_mutex);
  impl_->context = std::move(*ctx);
  return {};
}

std::uint16_t VisibilityServer::port() const { return impl_->port; }

void VisibilityServer::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  asio::post(*impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor->close(ignored);
  });
  impl_->io->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  {
    std::lock_guard lock(impl_->life->mutex);
    impl_->life->alive = false;  // later replies are dropped, never posted to a destroyed io_context
  }
  impl_->acceptor.reset();
  impl_->io.reset();
}

}  // namespace kueuepp::kube::visibility
