#pragma once

// A throwaway PKI for TLS tests: a CA, a server certificate for 127.0.0.1/localhost and
// a client certificate, all signed by the CA (EC P-256, valid for a day).

#include <string>

namespace kueuepp::kube::client::testing {

struct CertificateAndKey {
  std::string cert_pem;
  std::string key_pem;
};

struct TestPki {
  CertificateAndKey ca;
  CertificateAndKey server;
  CertificateAndKey client;
};

/// `ca_name` distinguishes independent PKIs (e.g. to test a wrong CA).
TestPki make_test_pki(const std::string& ca_name = "kueuepp-test-ca");

}  // namespace kueuepp::kube::client::testing
