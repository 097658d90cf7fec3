#pragma once

// TLS client certificates as Kubernetes reads them: the chain a TLS peer presented,
// checked against a CA bundle for client authentication, and the subject that names
// the user (CN) and their groups (O). Both the embedded API server (--client-ca-file)
// and the visibility server (the front proxy's requestheader-client-ca-file) use it;
// OpenSSL stays in the .cpp.

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

struct ssl_st;      // OpenSSL's SSL
struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace kueuepp::kube::tls {

/// Who a certificate names, as kube-apiserver's x509 authenticator reads it: the
/// common name is the user, each organization a group.
struct CertificateSubject {
  std::string common_name;
  std::vector<std::string> organizations;
};

/// Verifies `chain_der` (the client's certificate first, then intermediates, DER) against
/// the CAs of `ca_bundle_pem` for client authentication (extKeyUsage clientAuth, within
/// its validity). `ca_role` names the bundle in errors, e.g. "the client CA
/// (--client-ca-file)". The error says why the certificate is not trusted.
Expected<CertificateSubject> verify_client_certificate(const std::vector<std::string>& chain_der,
                                                       const std::string& ca_bundle_pem, std::string_view ca_role);

/// The chain the peer of an established TLS session presented, DER, its own certificate
/// first (empty when it presented none). Not verified.
std::vector<std::string> peer_chain_der(ssl_st* session);

/// Makes a TLS server ask its clients for a certificate, without failing the handshake
/// when one does not verify: whether it is trusted is decided per request with
/// verify_client_certificate (the bundle may change while connections live), and a client
/// without one may still authenticate otherwise, as kube-apiserver lets it. The subjects
/// of `acceptable_cas_pem` (may be empty) are named to clients as the CAs to choose by.
void request_client_certificates(ssl_ctx_st* context, const std::string& acceptable_cas_pem);

/// How many PEM certificates `pem` holds (a CA bundle that holds none is a mistake).
std::size_t count_pem_certificates(const std::string& pem);

}  // namespace kueuepp::kube::tls
