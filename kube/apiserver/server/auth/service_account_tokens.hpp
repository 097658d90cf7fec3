#pragma once

// ServiceAccount tokens as kube-apiserver issues and authenticates them: JWTs signed by
// the server's key, with kube-apiserver's claims (iss, sub system:serviceaccount:NS:NAME,
// aud, exp, iat, nbf, jti, and "kubernetes.io" naming the namespace, the ServiceAccount
// and the Pod or Secret the token is bound to). A token authenticates while its signature,
// issuer, audience and lifetime hold and the objects it names still exist with the uids
// it names (a deleted ServiceAccount's tokens stop working), as the user
// system:serviceaccount:NS:NAME in system:serviceaccounts, system:serviceaccounts:NS and
// system:authenticated.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/server/auth/jws_key.hpp"
#include "kube/apiserver/server/auth/user_info.hpp"

namespace kueuepp::kube::server::auth {

/// kube-apiserver's usual --service-account-issuer (kubeadm's, kind's): also the API
/// audience when none is configured.
inline constexpr std::string_view kDefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local";
inline constexpr std::string_view kServiceAccountsGroup = "system:serviceaccounts";

/// The object a token is bound to besides its ServiceAccount (TokenRequest's
/// boundObjectRef): a Pod or a Secret of the ServiceAccount's namespace.
struct BoundObject {
  std::string kind;
  std::string name;
  std::string uid;
};

/// What a token says.
struct ServiceAccountClaims {
  std::string ns;
  std::string name;
  std::string uid;
  std::vector<std::string> audiences;
  std::optional<BoundObject> bound;
  std::int64_t issued_at = 0;  ///< seconds since the epoch; also nbf
  std::int64_t expires = 0;
  std::string id;  ///< jti
};

/// Where a token's objects are looked up when it is presented: the uid of the live
/// object of `kind` (ServiceAccount, Pod, Secret) `ns`/`name`, nullopt when there is none
/// or it is being deleted.
using LiveObjectUid =
    std::function<std::optional<std::string>(std::string_view kind, std::string_view ns, std::string_view name)>;

/// The outcome of presenting a bearer token.
struct TokenCheck {
  enum class Outcome {
    NotOurs,        ///< not a JWT of this issuer: another authenticator may know it
    Rejected,       ///< this issuer's, but not valid (`reason` says why)
    Authenticated,  ///< `user`, for `audiences` (those of the token that were asked for)
  };
  Outcome outcome = Outcome::NotOurs;
  std::string reason;
  UserInfo user;
  std::vector<std::string> audiences;
};

struct ServiceAccountTokenOptions {
  std::string issuer = std::string(kDefaultServiceAccountIssuer);
  /// kube-apiserver's --api-audiences: what a token must be for to authenticate requests
  /// (empty: the issuer). A TokenRequest without audiences gets these.
  std::vector<std::string> api_audiences;
  /// Signs new tokens (can_sign()); also verifies.
  JwsKey signing_key;
  /// More keys that verify (kube-apiserver's --service-account-key-file).
  std::vector<JwsKey> verification_keys;
  LiveObjectUid live_uid;
  /// Seconds since the epoch.
  std::function<std::int64_t()> now;
};

class ServiceAccountTokens {
 public:
  explicit ServiceAccountTokens(ServiceAccountTokenOptions options);

  const std::string& issuer() const { return options_.issuer; }
  const std::vector<std::string>& api_audiences() const { return options_.api_audiences; }
  std::int64_t now() const { return options_.now(); }

  /// A signed token of `claims`.
  Expected<std::string> issue(const ServiceAccountClaims& claims) const;

  /// Checks a bearer token for `audiences` (empty: the API audiences). Never throws:
  /// whatever the text, the answer is one of TokenCheck's outcomes.
  TokenCheck authenticate(std::string_view token, const std::vector<std::string>& audiences = {}) const;

 private:
  ServiceAccountTokenOptions options_;
};

/// The user of a ServiceAccount: system:serviceaccount:NS:NAME and its groups.
UserInfo service_account_user(std::string_view ns, std::string_view name, std::string_view uid);

}  // namespace kueuepp::kube::server::auth
