#pragma once

// Certificates for tests: a CA, and leaf certificates it signs for a subject (client
// certificates, with organizations for groups; a serving certificate for 127.0.0.1),
// made by the product's own maker (kube/tls/certificate_authority.hpp). Shared by the
// tests of kube/tls, the visibility server and the API server.

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "kube/tls/certificate_authority.hpp"

namespace kueuepp::kube::tls::testing {

using KeyPair = CertifiedKey;

class TestCa {
 public:
  explicit TestCa(const std::string& cn) {
    auto ca = make_certificate_authority(cn, CertificateClock::now(), std::chrono::hours(24));
    if (!ca) throw std::runtime_error(ca.error().message);
    ca_ = std::move(*ca);
  }

  std::string pem() const { return ca_.cert_pem; }

  /// A leaf for `cn` (and `organizations`): a client certificate, or a serving one for
  /// 127.0.0.1.
  KeyPair issue(const std::string& cn, bool server = false, const std::vector<std::string>& organizations = {}) const {
    LeafCertificateRequest request;
    request.common_name = cn;
    request.organizations = organizations;
    request.usage = server ? LeafCertificateRequest::Usage::Server : LeafCertificateRequest::Usage::Client;
    if (server) request.hosts = {"127.0.0.1"};
    request.now = CertificateClock::now();
    request.validity = std::chrono::hours(24);
    auto leaf = issue_certificate(ca_, request);
    if (!leaf) throw std::runtime_error(leaf.error().message);
    return *leaf;
  }

  /// The DER of the first certificate of `pem` (what a TLS peer sends).
  static std::string der_of(const std::string& pem) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    if (cert == nullptr) throw std::runtime_error("not a PEM certificate");
    unsigned char* out = nullptr;
    int n = i2d_X509(cert, &out);
    X509_free(cert);
    std::string der(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
    OPENSSL_free(out);
    return der;
  }

 private:
  CertifiedKey ca_;
};

}  // namespace kueuepp::kube::tls::testing
