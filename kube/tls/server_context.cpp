#include "kube/tls/server_context.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/context.hpp>
#include <openssl/ssl.h>

namespace kueuepp::kube::tls {

namespace {

/// TLS 1.2 suites with forward secrecy and AEAD only (TLS 1.3's are all of that kind).
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

}  // namespace

Expected<std::shared_ptr<boost::asio::ssl::context>> make_server_context(const std::string& cert_pem,
                                                                         const std::string& key_pem,
                                                                         std::string_view what) {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
                   ec);
  if (ec) return fail("TLS options: " + ec.message());
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  if (SSL_CTX_set_cipher_list(ctx->native_handle(), kTls12Ciphers) != 1) return fail("TLS 1.2 cipher list refused");
  const std::string who(what);
  ctx->use_certificate_chain(boost::asio::buffer(cert_pem), ec);
  if (ec) return fail(who + "'s certificate does not load: " + ec.message());
  ctx->use_private_key(boost::asio::buffer(key_pem), ssl::context::pem, ec);
  if (ec) return fail(who + "'s key does not load: " + ec.message());
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) return fail(who + "'s key does not match its certificate");
  return ctx;
}

}  // namespace kueuepp::kube::tls
