#include "kube/apiserver/server/outbound/go_error_text.hpp"

#include <cctype>

#include <fmt/format.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

namespace kueuepp::kube::server {

std::string go_error(const boost::system::error_code& ec) {
  std::string m = ec.message();
  if (!m.empty()) m[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(m[0])));
  return m;
}

std::string x509_problem(int error, const std::string& server_name) {
  switch (error) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:  // a trusted CA of the same name did not sign it
      return "x509: certificate signed by unknown authority";
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "x509: certificate has expired or is not yet valid";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return fmt::format("x509: certificate is not valid for {}", server_name);
    default:
      return fmt::format("x509: {}", X509_verify_cert_error_string(error));
  }
}

}  // namespace kueuepp::kube::server
