#pragma once

// A raw TLS client of the webhook server for tests: it verifies the server against a CA
// for 127.0.0.1 (optionally capped at a TLS version) and posts requests over one
// kept-alive connection.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <memory>
#include <string>

namespace kueuepp::kube::webhook::testing {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

/// A TLS client connection to the server, verifying it against `ca_pem` for 127.0.0.1.
class TlsClient {
 public:
  TlsClient(std::uint16_t port, const std::string& ca_pem, int max_version = 0) : ctx_(ssl::context::tls_client) {
    ctx_.add_certificate_authority(asio::buffer(ca_pem));
    ctx_.set_verify_mode(ssl::verify_peer);
    if (max_version != 0) SSL_CTX_set_max_proto_version(ctx_.native_handle(), max_version);
    if (max_version != 0 && max_version < TLS1_2_VERSION) {
      SSL_CTX_set_min_proto_version(ctx_.native_handle(), max_version);
      SSL_CTX_set_security_level(ctx_.native_handle(), 0);
    }
    stream_ = std::make_unique<ssl::stream<tcp::socket>>(io_, ctx_);
    stream_->set_verify_callback(ssl::host_name_verification("127.0.0.1"));
    boost::system::error_code ec;
    stream_->next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
    if (!ec) stream_->handshake(ssl::stream_base::client, ec);
    handshake_error_ = ec;
  }
  bool connected() const { return !handshake_error_; }
  std::string handshake_error() const { return handshake_error_.message(); }

  struct Answer {
    int status = 0;
    std::string body;
    boost::system::error_code error;
  };
  Answer post(std::string_view path, std::string body, http::verb verb = http::verb::post) {
    http::request<http::string_body> req{verb, std::string(path), 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    req.keep_alive(true);
    req.body() = std::move(body);
    req.prepare_payload();
    Answer a;
    http::write(*stream_, req, a.error);
    if (a.error) return a;
    http::response<http::string_body> res;
    http::read(*stream_, buffer_, res, a.error);
    if (a.error) return a;
    a.status = static_cast<int>(res.result_int());
    a.body = std::move(res.body());
    return a;
  }
  ssl::stream<tcp::socket>& stream() { return *stream_; }
  /// The certificate the server presented, as PEM ("" when none).
  std::string peer_certificate_pem() {
    X509* cert = SSL_get1_peer_certificate(stream_->native_handle());
    if (cert == nullptr) return {};
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    X509_free(cert);
    return pem;
  }

 private:
  asio::io_context io_;
  ssl::context ctx_;
  std::unique_ptr<ssl::stream<tcp::socket>> stream_;
  boost::beast::flat_buffer buffer_;
  boost::system::error_code handshake_error_;
};


}  // namespace kueuepp::kube::webhook::testing
