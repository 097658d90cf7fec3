#pragma once

// Client-certificate authentication as kube-apiserver's --client-ca-file: a TLS client
// whose certificate verifies against the bundle is the user its subject's common name
// names, in the groups its organizations name (and system:authenticated).

#include <optional>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/server/auth/user_info.hpp"

namespace kueuepp::kube::server::auth {

class CertificateAuthenticator {
 public:
  /// `ca_bundle_pem` must hold at least one PEM certificate; the error says so otherwise.
  static Expected<CertificateAuthenticator> from_bundle(std::string ca_bundle_pem);
  /// Reads the bundle from a file (kube-apiserver's --client-ca-file).
  static Expected<CertificateAuthenticator> from_file(const std::string& path);

  /// The user the chain (DER, the client's own certificate first) names, or nullopt when
  /// it does not verify or names no user (an empty common name), so that the request may
  /// authenticate otherwise, as kube-apiserver's authenticators are tried in turn.
  std::optional<UserInfo> authenticate(const std::vector<std::string>& chain_der) const;

  const std::string& ca_bundle_pem() const { return ca_bundle_pem_; }

 private:
  explicit CertificateAuthenticator(std::string pem) : ca_bundle_pem_(std::move(pem)) {}
  std::string ca_bundle_pem_;
};

}  // namespace kueuepp::kube::server::auth
