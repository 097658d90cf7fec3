#include "kube/apiserver/server/aggregation/https_backend_transport.hpp"

#include <array>
#include <limits>
#include <map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "kube/apiserver/server/webhook_client/go_error_text.hpp"

namespace kueuepp::kube::server {

namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

constexpr std::size_t kReadChunk = 64u << 10;

/// Go's net/http wording of an answer that is not HTTP.
std::string malformed_answer(const beast::error_code& ec) {
  return fmt::format("net/http: HTTP/1.x transport connection broken: malformed HTTP response ({})", ec.message());
}

class Exchange final : public BackendExchange, public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(net::io_context& io, std::shared_ptr<ssl::context> tls, BackendTarget target, BackendRequest request,
           BackendTimeouts timeouts, BackendHandlers handlers)
      : tls_(std::move(tls)),
        resolver_(io),
        stream_(io, *tls_),
        deadline_(io),
        target_(std::move(target)),
        timeouts_(timeouts),
        handlers_(std::move(handlers)) {
    request_.method_string(request.method);
    request_.target(request.target);
    request_.version(11);
    for (auto& [name, value] : request.headers) request_.insert(name, value);
    request_.set(bhttp::field::host, target_.server_name + ":" + target_.port);
    request_.body() = std::move(request.body);
    request_.prepare_payload();
    request_.keep_alive(false);
    parser_.body_limit(std::numeric_limits<std::uint64_t>::max());
    // The answer to a HEAD has a Content-Length but no body.
    if (request_.method() == bhttp::verb::head) parser_.skip(true);
  }

  void start() {
    arm(timeouts_.connect, [this] { return fmt::format("dial tcp {}:{}: i/o timeout", target_.host, target_.port); });
    resolver_.async_resolve(target_.host, target_.port,
                            [self = shared_from_this()](beast::error_code ec, tcp::resolver::results_type results) {
                              self->on_resolve(ec, std::move(results));
                            });
  }

  void cancel() override {
    if (ended_) return;
    ended_ = true;
    close();
  }

  /// The handlers hold the caller, which holds this exchange: dropped once it ended.
  void release_handlers() { handlers_ = BackendHandlers{}; }

 private:
  template <class Message>
  void arm(std::chrono::milliseconds after, Message message) {
    deadline_.expires_after(after);
    deadline_.async_wait([weak = weak_from_this(), message](beast::error_code ec) {
      auto self = weak.lock();
      if (ec || !self || self->ended_) return;
      self->fail_head(message());
    });
  }

  void on_resolve(beast::error_code ec, tcp::resolver::results_type results) {
    if (ended_) return;
    if (ec) return fail_head(fmt::format("dial tcp: lookup {}: {}", target_.host, go_error(ec)));
    beast::get_lowest_layer(stream_).async_connect(
        results, [self = shared_from_this()](beast::error_code e, const tcp::endpoint&) { self->on_connect(e); });
  }

  void on_connect(beast::error_code ec) {
    if (ended_) return;
    if (ec) return fail_head(fmt::format("dial tcp {}:{}: connect: {}", target_.host, target_.port, go_error(ec)));
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().set_option(tcp::no_delay(true), ignored);
    beast::error_code parse_ec;
    net::ip::make_address(target_.server_name, parse_ec);
    if (parse_ec) SSL_set_tlsext_host_name(stream_.native_handle(), target_.server_name.c_str());
    if (target_.insecure_skip_verify) {
      stream_.set_verify_mode(ssl::verify_none);
    } else {
      stream_.set_verify_mode(ssl::verify_peer);
      stream_.set_verify_callback([weak = weak_from_this(), name = target_.server_name](bool preverified,
                                                                                         ssl::verify_context& vc) {
        bool ok = ssl::host_name_verification(name)(preverified, vc);
        if (auto self = weak.lock(); !ok && self && self->verify_error_.empty()) {
          self->verify_error_ = preverified ? fmt::format("x509: certificate is not valid for {}", name)
                                            : x509_problem(X509_STORE_CTX_get_error(vc.native_handle()), name);
        }
        return ok;
      });
    }
    arm(timeouts_.tls_handshake, [] { return std::string("net/http: TLS handshake timeout"); });
    stream_.async_handshake(ssl::stream_base::client,
                            [self = shared_from_this()](beast::error_code e) { self->on_handshake(e); });
  }

  void on_handshake(beast::error_code ec) {
    if (ended_) return;
    deadline_.cancel();
    if (ec) {
      if (!verify_error_.empty()) return fail_head(fmt::format("tls: failed to verify certificate: {}", verify_error_));
      if (ec.category() == net::error::get_ssl_category() &&
          ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_WRONG_VERSION_NUMBER) {
        return fail_head("tls: first record does not look like a TLS handshake");
      }
      if (ec == net::error::eof || ec == ssl::error::stream_truncated) return fail_head("EOF");
      return fail_head(fmt::format("remote error: tls: {}", go_error(ec)));
    }
    bhttp::async_write(stream_, request_, [self = shared_from_this()](beast::error_code e, std::size_t) {
      self->on_write(e);
    });
  }

  void on_write(beast::error_code ec) {
    if (ended_) return;
    if (ec) return fail_head(fmt::format("write tcp {}:{}: {}", target_.host, target_.port, go_error(ec)));
    bhttp::async_read_header(stream_, buffer_, parser_, [self = shared_from_this()](beast::error_code e, std::size_t) {
      self->on_header(e);
    });
  }

  void on_header(beast::error_code ec) {
    if (ended_) return;
    if (ec) {
      if (ec == bhttp::error::end_of_stream || ec == net::error::eof || ec == ssl::error::stream_truncated) {
        return fail_head("EOF");
      }
      if (ec.category() == bhttp::make_error_code(bhttp::error::bad_version).category()) {
        return fail_head(malformed_answer(ec));
      }
      return fail_head(fmt::format("read tcp {}:{}: {}", target_.host, target_.port, go_error(ec)));
    }
    head_sent_ = true;
    const auto& res = parser_.get();
    BackendResponseHead head;
    head.status = static_cast<int>(res.result_int());
    for (const auto& field : res) head.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    if (auto length = parser_.content_length()) head.content_length = *length;
    auto on_head = std::move(handlers_.head);
    on_head(std::move(head));
    if (ended_) return;
    read_body();
  }

  void read_body() {
    if (parser_.is_done()) return finish({});
    auto& body = parser_.get().body();
    body.data = chunk_.data();
    body.size = chunk_.size();
    bhttp::async_read_some(stream_, buffer_, parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_body(ec);
    });
  }

  void on_body(beast::error_code ec) {
    if (ended_) return;
    if (ec == bhttp::error::need_buffer) ec = {};
    std::size_t got = chunk_.size() - parser_.get().body().size;
    // A copy: the handler may cancel the exchange, which drops the handlers.
    auto data = handlers_.data;
    if (got > 0 && !data(std::string(chunk_.data(), got))) return cancel();
    if (ended_) return;
    if (ec) {
      if (ec == bhttp::error::partial_message || ec == net::error::eof || ec == ssl::error::stream_truncated) {
        return finish(fail("unexpected EOF"));
      }
      return finish(fail(fmt::format("read tcp {}:{}: {}", target_.host, target_.port, go_error(ec))));
    }
    read_body();
  }

  void fail_head(std::string message) {
    if (ended_) return;
    if (head_sent_) return finish(fail(std::move(message)));
    ended_ = true;
    auto on_head = std::move(handlers_.head);
    close();
    on_head(fail(std::move(message)));
  }

  void finish(Status result) {
    if (ended_) return;
    ended_ = true;
    auto on_end = std::move(handlers_.end);
    close();
    on_end(std::move(result));
  }

  void close() {
    release_handlers();
    deadline_.cancel();
    resolver_.cancel();
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().close(ignored);
  }

  std::shared_ptr<ssl::context> tls_;
  tcp::resolver resolver_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  net::steady_timer deadline_;
  BackendTarget target_;
  BackendTimeouts timeouts_;
  BackendHandlers handlers_;
  bhttp::request<bhttp::string_body> request_;
  bhttp::response_parser<bhttp::buffer_body> parser_;
  beast::flat_buffer buffer_;
  std::array<char, kReadChunk> chunk_{};
  std::string verify_error_;
  bool head_sent_ = false;
  bool ended_ = false;
};

class HttpsBackendTransport final : public BackendTransport {
 public:
  explicit HttpsBackendTransport(net::io_context& io) : io_(io) {}

  std::shared_ptr<BackendExchange> send(const BackendTarget& target, BackendRequest request, BackendTimeouts timeouts,
                                        BackendHandlers handlers) override {
    auto tls = context_for(target);
    if (!tls) {
      net::post(io_, [on_head = std::move(handlers.head), error = tls.error().message] { on_head(fail(error)); });
      return nullptr;
    }
    auto exchange = std::make_shared<Exchange>(io_, std::move(*tls), target, std::move(request), timeouts,
                                               std::move(handlers));
    // Started from the io_context, so no callback runs within send().
    net::post(io_, [exchange] { exchange->start(); });
    return exchange;
  }

 private:
  /// TLS client contexts, one per trust and client certificate (loading them costs more
  /// than an exchange).
  Expected<std::shared_ptr<ssl::context>> context_for(const BackendTarget& target) {
    std::string key = fmt::format("{}\n{}\n{}", target.insecure_skip_verify, target.ca_pem, target.client_cert_pem);
    if (auto it = contexts_.find(key); it != contexts_.end()) return it->second;
    auto tls = std::make_shared<ssl::context>(ssl::context::tls_client);
    tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    beast::error_code ec;
    if (!target.insecure_skip_verify) {
      if (target.ca_pem.empty()) {
        tls->set_default_verify_paths(ec);
      } else {
        tls->add_certificate_authority(net::buffer(target.ca_pem), ec);
      }
      if (ec) return fail(fmt::format("unable to load root certificates: {}", go_error(ec)));
    }
    if (!target.client_cert_pem.empty()) {
      tls->use_certificate_chain(net::buffer(target.client_cert_pem), ec);
      if (!ec) tls->use_private_key(net::buffer(target.client_key_pem), ssl::context::pem, ec);
      if (ec) return fail(fmt::format("unable to load the front proxy's client certificate: {}", go_error(ec)));
    }
    // An APIService's caBundle changes seldom; old contexts go with a bound.
    if (contexts_.size() >= 64) contexts_.clear();
    contexts_.emplace(std::move(key), tls);
    return tls;
  }

  net::io_context& io_;
  std::map<std::string, std::shared_ptr<ssl::context>> contexts_;
};

}  // namespace

std::unique_ptr<BackendTransport> make_https_backend_transport(net::io_context& io) {
  return std::make_unique<HttpsBackendTransport>(io);
}

}  // namespace kueuepp::kube::server
