#pragma once

// The delegated reviews as the controller makes them: TokenReview and
// SubjectAccessReview created on the API server (authentication.k8s.io/v1,
// authorization.k8s.io/v1), and the front proxy's trust read from ConfigMap
// kube-system/extension-apiserver-authentication. The controller's ServiceAccount
// needs create on both reviews (deploy/metrics/auth_delegation.yaml) and, for the
// visibility API's front proxy, the extension-apiserver-authentication-reader Role
// (deploy/visibility/auth_reader.yaml).

#include <functional>

#include "kube/client/client.hpp"
#include "kube/auth/delegated_auth.hpp"

namespace kueuepp::kube::auth {

class ApiServerReviews final : public Authorizer, public TokenAuthenticator {
 public:
  /// `client` must outlive the reviews' answers.
  explicit ApiServerReviews(client::Client& client) : client_(client) {}
  void authorize(const ResourceAttributes& attributes, Authorizer::Callback done) override;
  void authenticate(const std::string& token, TokenAuthenticator::Callback done) override;

 private:
  client::Client& client_;
};

/// Reads the ConfigMap; `done` gets its RequestHeaderConfig, or an error that says
/// what to fix (missing ConfigMap, no permission, bad content).
void read_request_header_config(client::Client& client,
                                std::function<void(Expected<RequestHeaderConfig>)> done);

}  // namespace kueuepp::kube::auth
