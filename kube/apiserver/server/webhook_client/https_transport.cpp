#include "kube/apiserver/server/webhook_client/https_transport.hpp"

#include <map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <fmt/format.h>
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


class Call : public std::enable_shared_from_this<Call> {
 public:
  Call(net::io_context& io, std::shared_ptr<ssl::context> tls, WebhookTarget target, std::string body,
       WebhookTransport::Callback done)
      : tls_(std::move(tls)),
        resolver_(io),
        stream_(io, *tls_),
        deadline_(io),
        target_(std::move(target)),
        done_(std::move(done)) {
    request_.method(bhttp::verb::post);
    request_.target(target_.path);
    request_.version(11);
    request_.set(bhttp::field::host, target_.server_name);
    request_.set(bhttp::field::content_type, "application/json");
    request_.set(bhttp::field::accept, "application/json, */*");
    request_.set(bhttp::field::user_agent, "kueuepp-apiserver");
    request_.body() = std::move(body);
    request_.prepare_payload();
    parser_.body_limit(target_.max_response_bytes);
  }

  void start(std::chrono::milliseconds timeout) {
    deadline_.expires_after(timeout);
    deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || self->finished_) return;
      self->finish(fail("context deadline exceeded"));
    });
    resolver_.async_resolve(target_.host, target_.port,
                            [self = shared_from_this()](beast::error_code ec, tcp::resolver::results_type results) {
                              self->on_resolve(ec, std::move(results));
                            });
  }

 private:
  void on_resolve(beast::error_code ec, tcp::resolver::results_type results) {
    if (finished_) return;
    if (ec) return finish(fail(fmt::format("dial tcp: lookup {}: {}", target_.host, go_error(ec))));
    beast::get_lowest_layer(stream_).async_connect(
        results, [self = shared_from_this()](beast::error_code e, const tcp::endpoint&) { self->on_connect(e); });
  }

  void on_connect(beast::error_code ec) {
    if (finished_) return;
    if (ec) {
      return finish(fail(fmt::format("dial tcp {}:{}: connect: {}", target_.host, target_.port, go_error(ec))));
    }
    // The request goes out as a few TLS records: without this, Nagle's algorithm holds
    // the last one back until the webhook's delayed ACK (tens of milliseconds).
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().set_option(tcp::no_delay(true), ignored);
    beast::error_code parse_ec;
    net::ip::make_address(target_.server_name, parse_ec);
    // SNI carries names, never addresses (RFC 6066).
    if (parse_ec) SSL_set_tlsext_host_name(stream_.native_handle(), target_.server_name.c_str());
    stream_.set_verify_mode(ssl::verify_peer);
    std::weak_ptr<Call> weak = weak_from_this();
    stream_.set_verify_callback([weak, name = target_.server_name](bool preverified, ssl::verify_context& vc) {
      bool ok = ssl::host_name_verification(name)(preverified, vc);
      if (!ok) {
        if (auto self = weak.lock(); self && self->verify_error_.empty()) {
          // The chain verified but the name did not: the host name check sets no error.
          self->verify_error_ = preverified ? fmt::format("x509: certificate is not valid for {}", name)
                                            : x509_problem(X509_STORE_CTX_get_error(vc.native_handle()), name);
        }
      }
      return ok;
    });
    stream_.async_handshake(ssl::stream_base::client,
                            [self = shared_from_this()](beast::error_code e) { self->on_handshake(e); });
  }

  void on_handshake(beast::error_code ec) {
    if (finished_) return;
    if (ec) {
      if (!verify_error_.empty()) return finish(fail(fmt::format("tls: failed to verify certificate: {}", verify_error_)));
      return finish(fail(fmt::format("remote error: tls: {}", go_error(ec))));
    }
    bhttp::async_write(stream_, request_, [self = shared_from_this()](beast::error_code e, std::size_t) {
      self->on_write(e);
    });
  }

  void on_write(beast::error_code ec) {
    if (finished_) return;
    if (ec) return finish(fail(fmt::format("write tcp {}:{}: {}", target_.host, target_.port, go_error(ec))));
    bhttp::async_read(stream_, buffer_, parser_, [self = shared_from_this()](beast::error_code e, std::size_t) {
      self->on_read(e);
    });
  }

  void on_read(beast::error_code ec) {
    if (finished_) return;
    if (ec == bhttp::error::body_limit) {
      return finish(fail(fmt::format("net/http: response body larger than {} bytes", target_.max_response_bytes)));
    }
    if (ec) {
      if (ec == bhttp::error::end_of_stream || ec == net::error::eof || ec == ssl::error::stream_truncated) {
        return finish(fail("EOF"));
      }
      return finish(fail(fmt::format("read tcp {}:{}: {}", target_.host, target_.port, go_error(ec))));
    }
    auto& res = parser_.get();
    WebhookReply reply;
    reply.status = static_cast<int>(res.result_int());
    reply.content_type = std::string(res[bhttp::field::content_type]);
    reply.body = std::move(res.body());
    finish(std::move(reply));
  }

  void finish(Expected<WebhookReply> result) {
    if (finished_) return;
    finished_ = true;
    deadline_.cancel();
    resolver_.cancel();
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().close(ignored);
    if (!result) result = fail(fmt::format("Post \"{}\": {}", target_.display_url, result.error().message));
    // Answered from a handler of this call, never from within post().
    done_(std::move(result));
    done_ = nullptr;
  }

  std::shared_ptr<ssl::context> tls_;
  tcp::resolver resolver_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  net::steady_timer deadline_;
  WebhookTarget target_;
  WebhookTransport::Callback done_;
  bhttp::request<bhttp::string_body> request_;
  bhttp::response_parser<bhttp::string_body> parser_;
  beast::flat_buffer buffer_;
  std::string verify_error_;
  bool finished_ = false;
};

class HttpsTransport final : public WebhookTransport {
 public:
  explicit HttpsTransport(net::io_context& io) : io_(io) {}

  void post(const WebhookTarget& target, std::string body, std::chrono::milliseconds timeout,
            Callback done) override {
    auto tls = context_for(target.ca_pem);
    if (!tls) {
      net::post(io_, [done = std::move(done), error = tls.error().message] {
        done(fail(fmt::format("could not get REST client: {}", error)));
      });
      return;
    }
    auto call = std::make_shared<Call>(io_, std::move(*tls), target, std::move(body), std::move(done));
    call->start(timeout);
  }

 private:
  /// TLS client contexts, one per CA bundle (loading the bundle costs more than a call).
  Expected<std::shared_ptr<ssl::context>> context_for(const std::string& ca_pem) {
    if (auto it = contexts_.find(ca_pem); it != contexts_.end()) return it->second;
    auto tls = std::make_shared<ssl::context>(ssl::context::tls_client);
    tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    beast::error_code ec;
    if (ca_pem.empty()) {
      tls->set_default_verify_paths(ec);
    } else {
      tls->add_certificate_authority(net::buffer(ca_pem), ec);
    }
    if (ec) return fail(fmt::format("unable to load root certificates: {}", go_error(ec)));
    // A webhook configuration's caBundle changes seldom; old contexts go with a bound.
    if (contexts_.size() >= 64) contexts_.clear();
    contexts_.emplace(ca_pem, tls);
    return tls;
  }

  net::io_context& io_;
  std::map<std::string, std::shared_ptr<ssl::context>> contexts_;
};

}  // namespace

std::unique_ptr<WebhookTransport> make_https_transport(net::io_context& io) {
  return std::make_unique<HttpsTransport>(io);
}

}  // namespace kueuepp::kube::server
