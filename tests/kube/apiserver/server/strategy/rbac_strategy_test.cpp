// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding:
// rule validation, RBAC names, roleRef defaults and validation, roleRef immutability
// and subjects, over HTTP.

#include "tests/kube/apiserver/server/strategy/builtin_kind_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kRbac = "/apis/rbac.authorization.k8s.io/v1";

std::string cluster_roles() { return std::string(kRbac) + "/clusterroles"; }
std::string roles() { return std::string(kRbac) + "/namespaces/team/roles"; }
std::string cluster_role_bindings() { return std::string(kRbac) + "/clusterrolebindings"; }
std::string role_bindings() { return std::string(kRbac) + "/namespaces/team/rolebindings"; }

std::string role(std::string_view kind, std::string_view name, std::string_view rules) {
  return "apiVersion: rbac.authorization.k8s.io/v1\nkind: " + std::string(kind) + "\nmetadata:\n  name: " +
         std::string(name) + "\n" + std::string(rules);
}

std::string binding(std::string_view kind, std::string_view name, std::string_view rest) {
  return "apiVersion: rbac.authorization.k8s.io/v1\nkind: " + std::string(kind) + "\nmetadata:\n  name: " +
         std::string(name) + "\n" + std::string(rest);
}

class RbacStrategy : public BuiltinKindTest {};

TEST_F(RbacStrategy, ClusterRolesTakeResourceAndNonResourceRules) {
  json::value created = create_yaml(cluster_roles(), role("ClusterRole", "system:kueuepp:reader",
                                                          "rules:\n- {apiGroups: [''], resources: [pods], verbs: [get, list]}\n"
                                                          "- {nonResourceURLs: [/healthz], verbs: [get]}\n"));
  EXPECT_EQ(str(created, "/metadata/name"), "system:kueuepp:reader");  // RBAC names allow ':'
  EXPECT_EQ(at(created, "/metadata/generation"), nullptr);
  EXPECT_EQ(str(get_ok(cluster_roles() + "/system:kueuepp:reader"), "/rules/1/nonResourceURLs/0"), "/healthz");
  // A role without rules serializes them as null, as the Go type has no omitempty.
  json::value empty = create_yaml(cluster_roles(), role("ClusterRole", "empty", ""));
  ASSERT_NE(at(empty, "/rules"), nullptr);
  EXPECT_TRUE(at(empty, "/rules")->is_null());
}

TEST_F(RbacStrategy, RulesNeedVerbsGroupsAndResources) {
  auto errs = invalid(post_yaml(roles(), role("Role", "r", "rules:\n- {resources: [pods]}\n- {apiGroups: [''], verbs: [get]}\n")));
  EXPECT_EQ(errs, (std::vector<std::string>{
                      "rules[0].verbs: Required value: verbs must contain at least one value",
                      "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
                      "rules[1].resources: Required value: resource rules must supply at least one resource"}));
  auto urls = invalid(post_yaml(roles(), role("Role", "r", "rules:\n- {nonResourceURLs: [/metrics], verbs: [get]}\n")));
  EXPECT_EQ(urls, std::vector<std::string>{
                      "rules[0].nonResourceURLs: Invalid value: [\"/metrics\"]: namespaced rules cannot apply to non-resource URLs"});
  auto mixed = invalid(post_yaml(cluster_roles(), role("ClusterRole", "m", "rules:\n- {nonResourceURLs: [/m], resources: [pods], verbs: [get]}\n")));
  EXPECT_TRUE(any_contains(mixed, "rules cannot apply to both regular resources and non-resource URLs"));
  auto aggregation = invalid(post_yaml(cluster_roles(), role("ClusterRole", "a", "aggregationRule: {}\n")));
  EXPECT_TRUE(any_contains(aggregation, "aggregationRule.clusterRoleSelectors: Required value"));
}

TEST_F(RbacStrategy, BindingsDefaultTheRoleRefGroupAndValidateIt) {
  json::value created = create_yaml(role_bindings(), binding("RoleBinding", "rb",
                                                             "roleRef: {kind: Role, name: r}\nsubjects:\n"
                                                             "- {kind: ServiceAccount, name: app}\n- {kind: User, name: alice}\n"));
  EXPECT_EQ(str(created, "/roleRef/apiGroup"), "rbac.authorization.k8s.io");
  EXPECT_EQ(at(created, "/subjects/0/apiGroup"), nullptr);  // the core group, omitted
  EXPECT_EQ(str(created, "/subjects/1/apiGroup"), "rbac.authorization.k8s.io");

  auto kind = invalid(post_yaml(role_bindings(), binding("RoleBinding", "bad", "roleRef: {apiGroup: example.com, kind: Pod}\n")));
  EXPECT_EQ(kind, (std::vector<std::string>{
                      "roleRef.apiGroup: Unsupported value: \"example.com\": supported values: \"rbac.authorization.k8s.io\"",
                      "roleRef.kind: Unsupported value: \"Pod\": supported values: \"Role\", \"ClusterRole\"",
                      "roleRef.name: Required value"}));
  auto cluster = invalid(post_yaml(cluster_role_bindings(), binding("ClusterRoleBinding", "crb", "roleRef: {kind: Role, name: r}\n")));
  EXPECT_EQ(cluster, std::vector<std::string>{"roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\""});
}

TEST_F(RbacStrategy, SubjectsAreServiceAccountsUsersOrGroups) {
  auto errs = invalid(post_yaml(cluster_role_bindings(),
                                binding("ClusterRoleBinding", "crb",
                                        "roleRef: {kind: ClusterRole, name: view}\nsubjects:\n"
                                        "- {kind: ServiceAccount, name: app}\n- {kind: Robot, name: r2}\n- {kind: Group}\n")));
  EXPECT_EQ(errs, (std::vector<std::string>{
                      "subjects[0].namespace: Required value",
                      "subjects[1].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
                      "subjects[2].name: Required value"}));
}

TEST_F(RbacStrategy, RoleRefCannotChange) {
  std::string path = cluster_role_bindings() + "/crb";
  create_yaml(cluster_role_bindings(), binding("ClusterRoleBinding", "crb",
                                               "roleRef: {kind: ClusterRole, name: view}\nsubjects:\n- {kind: Group, name: devs}\n"));
  auto errs = invalid(api().patch(path, json::object{{"roleRef", json::object{{"name", "admin"}}}}));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].substr(0, 23), "roleRef: Invalid value:");
  EXPECT_NE(errs[0].find("cannot change roleRef"), std::string::npos);
  // The subjects may change.
  json::value patched = expect(200, api().patch(path, json::object{{"subjects", json::array{json::object{{"kind", "User"}, {"name", "bob"}}}}}));
  EXPECT_EQ(str(patched, "/subjects/0/name"), "bob");
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
