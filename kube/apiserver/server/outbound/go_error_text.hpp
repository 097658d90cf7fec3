#pragma once

// Go's wording of network and certificate errors, as kube-apiserver's clients report
// them ("dial tcp 127.0.0.1:9443: connect: connection refused", "x509: certificate
// signed by unknown authority"): shared by the server's outgoing HTTPS calls (admission
// webhooks, aggregated APIs), so that their errors read like kube-apiserver's.

#include <string>

#include <boost/system/error_code.hpp>

namespace kueuepp::kube::server {

/// A socket error as Go's syscall error reads: its message, lower-case first letter.
std::string go_error(const boost::system::error_code& ec);

/// crypto/x509's wording of an OpenSSL verification error (X509_V_ERR_...).
std::string x509_problem(int error, const std::string& server_name);

}  // namespace kueuepp::kube::server
