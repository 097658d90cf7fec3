#pragma once

// The gate in front of kueuepp's metrics and introspection over HTTPS, as
// controller-runtime's WithAuthenticationAndAuthorization filter guards Kueue's metrics:
// every request is authenticated (a client certificate signed by the configured client
// CA, else a bearer token checked with a TokenReview) and then authorized with a
// SubjectAccessReview of its URL path as a non-resource URL, the verb being the HTTP
// method in lower case ("get" for GET). No credentials, or credentials the cluster does
// not accept: 401. Refused: 403. A review that fails: 500. Each refusal says who was
// refused what and why, as a JSON Status. Pure: the reviews are behind interfaces.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/auth/delegated_auth.hpp"
#include "kube/http/headers.hpp"

namespace kueuepp::kube::auth {

struct GateRequest {
  std::string method;  ///< GET, HEAD, ...
  std::string target;  ///< path and query; the path alone is authorized
  http::Headers headers;
  /// The client's certificate chain as presented (DER, its own first); empty without one.
  std::vector<std::string> peer_chain_der;
};

struct GateDecision {
  bool allowed = false;
  int status = 200;  ///< 401, 403 or 500 when not allowed
  std::string body;  ///< a JSON Status when not allowed
  UserInfo user;     ///< who asked, when authenticated
};

class NonResourceGate {
 public:
  /// `client_ca_pem` empty: client certificates are not accepted (bearer tokens only).
  NonResourceGate(std::shared_ptr<TokenAuthenticator> tokens, std::shared_ptr<Authorizer> authorizer,
                  std::string client_ca_pem = "");

  using Callback = std::function<void(GateDecision)>;
  /// Answers through `done` exactly once, on any thread. The gate must outlive the answers
  /// of the reviews it asked.
  void check(const GateRequest& request, Callback done) const;

 private:
  void authorize(const GateRequest& request, UserInfo user, Callback done) const;

  std::shared_ptr<TokenAuthenticator> tokens_;
  std::shared_ptr<Authorizer> authorizer_;
  std::string client_ca_pem_;
};

/// The path of a request target, as it is authorized: the query left out.
std::string gate_path(std::string_view target);

}  // namespace kueuepp::kube::auth
