#pragma once

// The server's TLS: certificates generated on first start (and kept in
// <data-dir>/pki, with the bearer token, so kubeconfigs stay valid across restarts),
// loaded into an Asio SSL context (TLS 1.2+). Internal to kube/apiserver/server.

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "core/expected.hpp"
#include "kube/apiserver/server/tls/certificates.hpp"

namespace kueuepp::kube::server {

struct TlsSetup {
  std::unique_ptr<boost::asio::ssl::context> context;
  std::string ca_pem;
  /// The token kept in <data-dir>/pki/token (empty without a data directory).
  std::string stored_token;
};

/// The certificate set kept in `dir` as <stem>-ca.crt, <stem>-ca.key, <stem>.crt and
/// <stem>.key (private files), made with `make` when any is missing; with an empty `dir`,
/// made afresh.
Expected<CertificateSet> load_or_make_certificates(const std::string& dir, const std::string& stem,
                                                   const std::function<Expected<CertificateSet>()>& make);

/// Loads or makes the certificates; `token` is stored beside them when a data directory
/// is given and none is stored yet. With `client_ca_pem`, clients are asked for a
/// certificate (naming those CAs); the handshake does not depend on it.
Expected<TlsSetup> make_tls(const std::string& data_dir, const std::string& token, const std::string& client_ca_pem = {});

}  // namespace kueuepp::kube::server
