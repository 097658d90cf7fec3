#pragma once

// A private CA and a serving certificate signed by it, made with OpenSSL (EC P-256):
// the CA certificate goes into kubeconfigs (certificate-authority-data); the serving
// certificate names 127.0.0.1, ::1 and localhost.

#include <string>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::server {

struct CertificateSet {
  std::string ca_cert_pem;
  std::string ca_key_pem;
  std::string server_cert_pem;  ///< the leaf: a serving or a client certificate
  std::string server_key_pem;
};

/// Generates a CA and a serving certificate for `hosts` (IP addresses or DNS names).
Expected<CertificateSet> generate_certificates(const std::vector<std::string>& hosts);

/// Generates a CA named `ca_name` and a client certificate (extKeyUsage clientAuth,
/// subject CN `client_name`) signed by it: the front proxy's, for aggregated APIs.
Expected<CertificateSet> generate_client_certificates(const std::string& ca_name, const std::string& client_name);

}  // namespace kueuepp::kube::server
