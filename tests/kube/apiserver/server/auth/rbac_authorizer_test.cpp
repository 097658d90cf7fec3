// RBAC as Kubernetes evaluates it, over RBAC objects held in memory: which bindings
// apply to a user (User, Group, ServiceAccount subjects), which rules match a request
// (verbs, apiGroups, resources with subresources, resourceNames, nonResourceURLs,
// wildcards), the reasons kube-apiserver gives, and its 403 messages.

#include <map>

#include <gtest/gtest.h>

#include "kube/apiserver/server/auth/rbac_authorizer.hpp"

namespace kueuepp::kube::server::auth {
namespace {

json::value J(std::string_view text) { return *json::parse(text); }

class Objects final : public RbacObjects {
 public:
  void cluster_role_bindings(const Visit& visit) const override {
    for (const auto& b : cluster_role_bindings_) visit(b);
  }
  void role_bindings(std::string_view ns, const Visit& visit) const override {
    for (const auto& [bns, b] : role_bindings_) {
      if (bns == ns) visit(b);
    }
  }
  const json::value* cluster_role(std::string_view name) const override {
    auto it = cluster_roles_.find(std::string(name));
    return it == cluster_roles_.end() ? nullptr : &it->second;
  }
  const json::value* role(std::string_view ns, std::string_view name) const override {
    auto it = roles_.find(std::string(ns) + "/" + std::string(name));
    return it == roles_.end() ? nullptr : &it->second;
  }

  void cluster_role(const std::string& name, std::string_view rules) { cluster_roles_[name] = J(rules); }
  void role(const std::string& ns, const std::string& name, std::string_view rules) { roles_[ns + "/" + name] = J(rules); }
  void cluster_role_binding(std::string_view name, std::string_view role, std::string_view subjects) {
    cluster_role_bindings_.push_back(binding(name, "ClusterRole", role, subjects));
  }
  void role_binding(const std::string& ns, std::string_view name, std::string_view kind, std::string_view role,
                    std::string_view subjects) {
    role_bindings_.emplace_back(ns, binding(name, kind, role, subjects));
  }

 private:
  static json::value binding(std::string_view name, std::string_view kind, std::string_view role, std::string_view subjects) {
    return json::object{{"metadata", json::object{{"name", name}}},
                        {"roleRef", json::object{{"kind", kind}, {"name", role}}},
                        {"subjects", J(subjects)}};
  }

  std::map<std::string, json::value> cluster_roles_, roles_;
  std::vector<json::value> cluster_role_bindings_;
  std::vector<std::pair<std::string, json::value>> role_bindings_;
};

UserInfo alice() { return UserInfo{"alice", "1", {"devs", "system:authenticated"}}; }

Attributes resource(UserInfo u, std::string verb, std::string group, std::string res, std::string ns = "",
                    std::string name = "", std::string sub = "") {
  Attributes a;
  a.user = std::move(u);
  a.verb = std::move(verb);
  a.group = std::move(group);
  a.resource = std::move(res);
  a.ns = std::move(ns);
  a.name = std::move(name);
  a.subresource = std::move(sub);
  return a;
}

Attributes path(UserInfo u, std::string verb, std::string p) {
  Attributes a;
  a.user = std::move(u);
  a.verb = std::move(verb);
  a.resource_request = false;
  a.path = std::move(p);
  return a;
}

TEST(RbacAuthorizer, ARoleBindingGrantsItsRoleInItsNamespaceOnly) {
  Objects o;
  o.role("team", "job-reader", R"({"rules": [{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list"]}]})");
  o.role_binding("team", "read-jobs", "Role", "job-reader", R"([{"kind": "User", "name": "alice"}])");
  Decision d = authorize(resource(alice(), "list", "batch", "jobs", "team"), o);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reason, R"(RBAC: allowed by RoleBinding "read-jobs/team" of Role "job-reader" to User "alice")");
  EXPECT_FALSE(authorize(resource(alice(), "list", "batch", "jobs", "other"), o).allowed);
  EXPECT_FALSE(authorize(resource(alice(), "list", "batch", "jobs"), o).allowed);   // cluster-wide
  EXPECT_FALSE(authorize(resource(alice(), "delete", "batch", "jobs", "team", "j"), o).allowed);
  EXPECT_FALSE(authorize(resource(alice(), "list", "", "jobs", "team"), o).allowed);  // another group
  EXPECT_FALSE(authorize(resource(alice(), "get", "batch", "jobs", "team", "j", "status"), o).allowed);
  EXPECT_FALSE(authorize(resource(UserInfo{"bob", "", {}}, "list", "batch", "jobs", "team"), o).allowed);
}

TEST(RbacAuthorizer, AClusterRoleBindingGrantsEverywhere) {
  Objects o;
  o.cluster_role("viewer", R"({"rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]}]})");
  o.cluster_role_binding("devs-view", "viewer", R"([{"kind": "Group", "name": "devs"}])");
  Decision d = authorize(resource(alice(), "watch", "kueue.x-k8s.io", "workloads"), o);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reason, R"(RBAC: allowed by ClusterRoleBinding "devs-view" of ClusterRole "viewer" to Group "devs")");
  EXPECT_TRUE(authorize(resource(alice(), "get", "", "pods", "x", "p", "log"), o).allowed);  // "*" covers subresources
  EXPECT_FALSE(authorize(resource(alice(), "create", "", "pods", "x"), o).allowed);
}

TEST(RbacAuthorizer, ARoleBindingMayNameAClusterRole) {
  Objects o;
  o.cluster_role("editor", R"({"rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["*"]}]})");
  o.role_binding("team", "edit", "ClusterRole", "editor", R"([{"kind": "User", "name": "alice"}])");
  EXPECT_TRUE(authorize(resource(alice(), "delete", "", "configmaps", "team", "c"), o).allowed);
  EXPECT_FALSE(authorize(resource(alice(), "delete", "", "configmaps", "other", "c"), o).allowed);
}

TEST(RbacAuthorizer, SubresourcesAndResourceNames) {
  Objects o;
  o.cluster_role("status-writer", R"({"rules": [
      {"apiGroups": ["batch"], "resources": ["jobs/status"], "verbs": ["update", "patch"]},
      {"apiGroups": ["kueue.x-k8s.io"], "resources": ["*/status"], "verbs": ["get"]},
      {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "resourceNames": ["lock"], "verbs": ["get", "update"]}]})");
  o.cluster_role_binding("b", "status-writer", R"([{"kind": "User", "name": "alice"}])");
  EXPECT_TRUE(authorize(resource(alice(), "patch", "batch", "jobs", "t", "j", "status"), o).allowed);
  EXPECT_FALSE(authorize(resource(alice(), "patch", "batch", "jobs", "t", "j"), o).allowed);
  EXPECT_TRUE(authorize(resource(alice(), "get", "kueue.x-k8s.io", "workloads", "t", "w", "status"), o).allowed);
  EXPECT_FALSE(authorize(resource(alice(), "get", "kueue.x-k8s.io", "workloads", "t", "w"), o).allowed);
  EXPECT_TRUE(authorize(resource(alice(), "get", "coordination.k8s.io", "leases", "t", "lock"), o).allowed);
  EXPECT_FALSE(authorize(resource(alice(), "get", "coordination.k8s.io", "leases", "t", "other"), o).allowed);
  // A rule with resourceNames never allows a request without a name (a list).
  EXPECT_FALSE(authorize(resource(alice(), "list", "coordination.k8s.io", "leases", "t"), o).allowed);
}

TEST(RbacAuthorizer, NonResourceUrls) {
  Objects o;
  o.cluster_role("paths", R"({"rules": [{"nonResourceURLs": ["/healthz", "/apis/*"], "verbs": ["get"]}]})");
  o.cluster_role_binding("b", "paths", R"([{"kind": "Group", "name": "system:authenticated"}])");
  EXPECT_TRUE(authorize(path(alice(), "get", "/healthz"), o).allowed);
  EXPECT_TRUE(authorize(path(alice(), "get", "/apis/batch/v1"), o).allowed);
  EXPECT_FALSE(authorize(path(alice(), "get", "/metrics"), o).allowed);
  EXPECT_FALSE(authorize(path(alice(), "post", "/healthz"), o).allowed);
  // A resource rule does not cover paths, nor a path rule resources.
  EXPECT_FALSE(authorize(resource(alice(), "get", "", "healthz"), o).allowed);
}

TEST(RbacAuthorizer, ServiceAccountSubjects) {
  Objects o;
  o.role("team", "r", R"({"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}]})");
  // Without a namespace, a ServiceAccount subject is in the binding's namespace.
  o.role_binding("team", "sa", "Role", "r", R"([{"kind": "ServiceAccount", "name": "builder"}])");
  UserInfo sa{"system:serviceaccount:team:builder", "", {"system:serviceaccounts", "system:serviceaccounts:team"}};
  Decision d = authorize(resource(sa, "list", "", "pods", "team"), o);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.reason, R"(RBAC: allowed by RoleBinding "sa/team" of Role "r" to ServiceAccount "builder/team")");
  UserInfo other{"system:serviceaccount:other:builder", "", {}};
  EXPECT_FALSE(authorize(resource(other, "list", "", "pods", "team"), o).allowed);
  // The service-account groups are groups like any other.
  o.cluster_role("lister", R"({"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}]})");
  o.cluster_role_binding("all-sa", "lister", R"([{"kind": "Group", "name": "system:serviceaccounts"}])");
  EXPECT_TRUE(authorize(resource(sa, "list", "", "pods", "elsewhere"), o).allowed);
  // A ClusterRoleBinding's ServiceAccount subject needs its namespace.
  o.cluster_role_binding("no-ns", "lister", R"([{"kind": "ServiceAccount", "name": "x"}])");
  EXPECT_FALSE(authorize(resource(UserInfo{"system:serviceaccount::x", "", {}}, "list", "", "pods", "n"), o).allowed);
}

TEST(RbacAuthorizer, MissingRolesAreTheReason) {
  Objects o;
  o.role_binding("team", "gone", "Role", "deleted", R"([{"kind": "User", "name": "alice"}])");
  Decision d = authorize(resource(alice(), "list", "", "pods", "team"), o);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.reason, R"(RBAC: role.rbac.authorization.k8s.io "deleted" not found)");
  o.cluster_role_binding("gone-too", "nothing", R"([{"kind": "User", "name": "alice"}])");
  EXPECT_EQ(authorize(resource(alice(), "list", "", "pods", "team"), o).reason,
            R"(RBAC: [clusterrole.rbac.authorization.k8s.io "nothing" not found, role.rbac.authorization.k8s.io "deleted" not found])");
  EXPECT_EQ(authorize(resource(UserInfo{"bob", "", {}}, "list", "", "pods", "team"), o).reason, "");
}

TEST(RbacAuthorizer, MastersMayDoAnything) {
  Objects o;
  EXPECT_TRUE(authorize(resource(UserInfo{"root", "", {"system:masters"}}, "delete", "", "namespaces", "", "x"), o).allowed);
  EXPECT_TRUE(authorize(path(UserInfo{"root", "", {"system:masters"}}, "get", "/anything"), o).allowed);
  EXPECT_FALSE(authorize(path(alice(), "get", "/anything"), o).allowed);
}

TEST(RbacAuthorizer, RulesForListsWhatTheUserHolds) {
  Objects o;
  o.cluster_role("viewer", R"({"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]})");
  o.cluster_role_binding("devs-view", "viewer", R"([{"kind": "Group", "name": "devs"}])");
  o.role("team", "r", R"({"rules": [{"nonResourceURLs": ["/x"], "verbs": ["get"]}]})");
  o.role_binding("team", "b", "Role", "r", R"([{"kind": "User", "name": "alice"}])");
  o.role_binding("team", "gone", "Role", "missing", R"([{"kind": "User", "name": "alice"}])");
  o.role_binding("other", "b", "Role", "r", R"([{"kind": "User", "name": "alice"}])");
  std::string errors;
  std::vector<json::value> rules = rules_for(alice(), "team", o, errors);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(json::dump(rules[0]), R"({"apiGroups":[""],"resources":["pods"],"verbs":["get"]})");
  EXPECT_EQ(json::dump(rules[1]), R"({"nonResourceURLs":["/x"],"verbs":["get"]})");
  EXPECT_EQ(errors, R"(role.rbac.authorization.k8s.io "missing" not found)");
  EXPECT_EQ(rules_for(UserInfo{"bob", "", {}}, "team", o, errors).size(), 0u);
  EXPECT_EQ(errors, "");
}

TEST(ForbiddenMessage, KubeApiserversForms) {
  EXPECT_EQ(forbidden_message(resource(alice(), "list", "batch", "jobs", "other"), ""),
            R"(jobs.batch is forbidden: User "alice" cannot list resource "jobs" in API group "batch" in the namespace "other")");
  EXPECT_EQ(forbidden_message(resource(alice(), "get", "", "pods", "team", "p"), ""),
            R"(pods "p" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "team")");
  EXPECT_EQ(forbidden_message(resource(alice(), "list", "batch", "jobs"), ""),
            R"(jobs.batch is forbidden: User "alice" cannot list resource "jobs" in API group "batch" at the cluster scope)");
  EXPECT_EQ(forbidden_message(resource(alice(), "patch", "batch", "jobs", "t", "j", "status"), ""),
            R"(jobs.batch "j" is forbidden: User "alice" cannot patch resource "jobs/status" in API group "batch" in the namespace "t")");
  EXPECT_EQ(forbidden_message(path(alice(), "get", "/metrics"), ""),
            R"(forbidden: User "alice" cannot get path "/metrics")");
  EXPECT_EQ(forbidden_message(resource(alice(), "list", "", "pods", "team"), R"(RBAC: role.rbac.authorization.k8s.io "x" not found)"),
            R"(pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team": RBAC: role.rbac.authorization.k8s.io "x" not found)");
  EXPECT_EQ(forbidden_message(path(UserInfo{"a<b>", "", {}}, "get", "/x&y"), ""),
            R"(forbidden: User "a&lt;b&gt;" cannot get path "/x&amp;y")");
}

}  // namespace
}  // namespace kueuepp::kube::server::auth
