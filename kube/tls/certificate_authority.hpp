#pragma once

// Certificates made and read with OpenSSL (EC P-256 keys, SHA-256 signatures): a private CA, and
// serving or client certificates it signs. The one maker behind the embedded API
// server's certificates, the front proxy's and the webhook server's. Time is an argument,
// so callers with their own clock (certificate rotation, its tests) decide validity.

#include <chrono>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::tls {

using CertificateClock = std::chrono::system_clock;

/// A certificate and its private key, both PEM.
struct CertifiedKey {
  std::string cert_pem;
  std::string key_pem;
};

/// A self-signed CA certificate (CA:TRUE, keyCertSign) named `common_name`, valid from an
/// hour before `now` (clocks differ between peers) for `validity`.
Expected<CertifiedKey> make_certificate_authority(const std::string& common_name, CertificateClock::time_point now,
                                                  std::chrono::seconds validity);

struct LeafCertificateRequest {
  enum class Usage { Server, Client };
  std::string common_name;
  /// The subject's O entries: a client certificate's groups, as Kubernetes reads them.
  std::vector<std::string> organizations{"kueuepp"};
  Usage usage = Usage::Server;
  /// subjectAltName entries, DNS names or IP addresses (a serving certificate needs one).
  std::vector<std::string> hosts;
  CertificateClock::time_point now;
  std::chrono::seconds validity{std::chrono::hours(24 * 365)};
};

/// A new key and a certificate for it signed by `ca` (its certificate and key).
Expected<CertifiedKey> issue_certificate(const CertifiedKey& ca, const LeafCertificateRequest& request);

struct CertificateInfo {
  CertificateClock::time_point not_before;
  CertificateClock::time_point not_after;
  std::vector<std::string> hosts;  ///< subjectAltName DNS names and IP addresses
};

/// The first certificate of a PEM text.
Expected<CertificateInfo> inspect_certificate(const std::string& pem);

/// Whether `leaf`'s certificate is signed by one of the CAs of `ca_bundle_pem` (an empty
/// bundle: not checked) and its key is `leaf`'s key; the error says which part does not
/// fit. Validity in time is not checked: callers with a clock decide that.
Status verify_certified_key(const CertifiedKey& leaf, const std::string& ca_bundle_pem);

/// The certificates of a PEM text, each as PEM (to trim a bundle).
std::vector<std::string> split_pem_certificates(const std::string& pem);

}  // namespace kueuepp::kube::tls
