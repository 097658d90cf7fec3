#pragma once

// Authentication and authorization delegated to the cluster, as a Kubernetes extension
// API server does (k8s.io/apiserver's delegating authenticator and authorizer):
// - the front proxy (kube-apiserver's aggregator) is trusted by its client certificate,
//   verified against requestheader-client-ca-file of ConfigMap
//   kube-system/extension-apiserver-authentication (and its CN against
//   requestheader-allowed-names when that list is not empty); the user and groups are
//   then read from the headers the ConfigMap names;
// - otherwise a bearer token is checked with a TokenReview (authentication.k8s.io/v1);
// - every request is then authorized with a SubjectAccessReview (authorization.k8s.io/v1),
//   answers cached briefly (10 s, the delegating authorizer's default for both).
// The reviews are behind interfaces (TokenAuthenticator, Authorizer): the controller's
// implementation calls the API server (kube_reviews.hpp), tests use fakes. Pure otherwise.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/auth/expiring_cache.hpp"
#include "kube/http/headers.hpp"

namespace kueuepp::kube::auth {

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

/// What ConfigMap kube-system/extension-apiserver-authentication says of the front proxy.
struct RequestHeaderConfig {
  std::string client_ca_pem;  ///< requestheader-client-ca-file ("" : no front proxy trusted)
  std::vector<std::string> allowed_names;
  std::vector<std::string> username_headers{"X-Remote-User"};
  std::vector<std::string> uid_headers;
  std::vector<std::string> group_headers{"X-Remote-Group"};
  std::vector<std::string> extra_header_prefixes{"X-Remote-Extra-"};
};

/// Reads the ConfigMap's JSON document; its list values are JSON arrays of strings.
Expected<RequestHeaderConfig> request_header_config(std::string_view configmap_json);

/// Whether a verified front-proxy certificate's CN may proxy (an empty list allows any).
bool proxy_name_allowed(const RequestHeaderConfig& config, std::string_view common_name);

/// The user a trusted front proxy names in its headers; nullopt when it names none.
std::optional<UserInfo> user_from_request_headers(const http::Headers& headers, const RequestHeaderConfig& config);

/// The bearer token of an Authorization header, if any.
std::optional<std::string> bearer_token(const http::Headers& headers);

/// What a request asks to do, as a SubjectAccessReview says it: its resourceAttributes,
/// or its nonResourceAttributes when `path` is set (a URL such as /metrics that names no
/// API object; RBAC matches it against nonResourceURLs).
struct ResourceAttributes {
  UserInfo user;
  std::string verb = "get";
  std::string path;  ///< a non-resource request's URL path; the fields below are then unused
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string ns;
};

struct AuthorizationDecision {
  bool allowed = false;
  std::string reason;
};

std::string encode_subject_access_review(const ResourceAttributes& attributes);
/// The status of a SubjectAccessReview answer.
Expected<AuthorizationDecision> decode_subject_access_review(std::string_view body);

std::string encode_token_review(std::string_view token);
/// The user of a TokenReview answer; nullopt when the token was not authenticated.
Expected<std::optional<UserInfo>> decode_token_review(std::string_view body);

/// Answers may come on any thread, exactly once.
class Authorizer {
 public:
  using Callback = std::function<void(Expected<AuthorizationDecision>)>;
  virtual ~Authorizer() = default;
  virtual void authorize(const ResourceAttributes& attributes, Callback done) = 0;
};

class TokenAuthenticator {
 public:
  using Callback = std::function<void(Expected<std::optional<UserInfo>>)>;
  virtual ~TokenAuthenticator() = default;
  virtual void authenticate(const std::string& token, Callback done) = 0;
};

/// An Authorizer that remembers answers for `ttl` (errors are not remembered), so a
/// dashboard polling every second costs one SubjectAccessReview per 10 s per question.
class CachingAuthorizer final : public Authorizer {
 public:
  using Clock = ExpiringCache<AuthorizationDecision>::Clock;
  CachingAuthorizer(std::shared_ptr<Authorizer> inner, std::chrono::milliseconds ttl, Clock clock = {});
  void authorize(const ResourceAttributes& attributes, Callback done) override;
  std::size_t size() const;

 private:
  std::shared_ptr<Authorizer> inner_;
  ExpiringCache<AuthorizationDecision> cache_;
};

}  // namespace kueuepp::kube::auth
