#pragma once

// Kubernetes' RBAC authorizer over the Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings the server stores: the request is allowed when a rule of a role
// bound to the user (by name, a group, or as a ServiceAccount
// system:serviceaccount:NS:NAME) in the request's namespace or cluster-wide matches it:
// verbs, apiGroups, resources (`jobs/status`, `*/status`, `*`), resourceNames,
// nonResourceURLs (`/healthz`, `/api/*`, `*`). system:masters is allowed everything
// before RBAC is asked, as kube-apiserver's privileged-group authorizer does.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/apiserver/server/auth/attributes.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::server::auth {

/// Where the RBAC objects are read (the store, in the server).
class RbacObjects {
 public:
  virtual ~RbacObjects() = default;
  using Visit = std::function<void(const json::value&)>;
  virtual void cluster_role_bindings(const Visit& visit) const = 0;
  virtual void role_bindings(std::string_view ns, const Visit& visit) const = 0;
  /// null when there is none of that name.
  virtual const json::value* cluster_role(std::string_view name) const = 0;
  virtual const json::value* role(std::string_view ns, std::string_view name) const = 0;
};

struct Decision {
  bool allowed = false;
  /// Allowed: `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "u"`;
  /// refused: empty, or `RBAC: <errors>` when bound roles are missing (kube-apiserver's).
  std::string reason;
};

Decision authorize(const Attributes& request, const RbacObjects& objects);

/// Every rule the user holds in `ns` (ClusterRoleBindings' first, then the namespace's
/// RoleBindings'), as rbac's RulesFor lists them for a SelfSubjectRulesReview;
/// `errors` gets kube-apiserver's text for bound roles that are missing.
std::vector<json::value> rules_for(const UserInfo& user, std::string_view ns, const RbacObjects& objects,
                                   std::string& errors);

/// One PolicyRule against the request, as rbac's RuleAllows.
bool rule_allows(const Attributes& request, const json::value& rule);

}  // namespace kueuepp::kube::server::auth
