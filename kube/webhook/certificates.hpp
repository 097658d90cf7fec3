#pragma once

// The webhook server's certificates, made and read with OpenSSL (EC P-256, SHA-256): a
// private CA and a serving certificate it signs for the webhook Service's DNS names
// (<service>.<namespace>.svc, ...) or the addresses of a URL. Time is an argument: the
// caller's clock decides validity, so tests make certificates in the past or the future.

#include <chrono>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/tls/certificate_authority.hpp"

namespace kueuepp::kube::webhook {

using Clock = std::chrono::system_clock;

struct CertificateBundle {
  /// PEM; the caBundle: the current CA first, then, after a CA rotation, the previous CA
  /// while it is still valid (replicas still serving a certificate it signed stay trusted).
  std::string ca_cert_pem;
  std::string ca_key_pem;
  std::string cert_pem;  ///< the serving certificate
  std::string key_pem;
};

struct CertificateRequest {
  /// DNS names and IP addresses the serving certificate names (subjectAltName).
  std::vector<std::string> hosts;
  Clock::time_point now;
  std::chrono::seconds ca_validity{std::chrono::hours(24 * 365 * 10)};
  std::chrono::seconds serving_validity{std::chrono::hours(24 * 365)};
};

/// A new CA and a serving certificate signed by it.
Expected<CertificateBundle> generate_bundle(const CertificateRequest& request);

/// A new serving certificate signed by the bundle's CA (which is kept, with its bundle).
Expected<CertificateBundle> reissue_serving(const CertificateBundle& current, const CertificateRequest& request);

using kube::tls::CertificateInfo;
using kube::tls::inspect_certificate;
using kube::tls::split_pem_certificates;

/// Whether the serving certificate is signed by one of the CAs of `ca_bundle_pem` and
/// its key is `key_pem`'s; the error says which part does not fit.
Status verify_serving(const CertificateBundle& bundle);

}  // namespace kueuepp::kube::webhook
