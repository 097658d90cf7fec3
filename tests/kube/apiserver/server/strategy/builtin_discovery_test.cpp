// Discovery of the built-in kinds `kubectl apply -k deploy/` needs: each resource with
// its kind, scope, verbs (kube-apiserver 1.28's, sorted), short names, categories and
// status subresource, in the per-version lists and the aggregated document.

#include "tests/kube/apiserver/server/strategy/builtin_kind_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

/// The entry of `name` in an APIResourceList (null when absent).
json::value resource_entry(const json::value& list, std::string_view name) {
  const json::value* resources = at(list, "/resources");
  if (resources == nullptr || !resources->is_array()) return nullptr;
  for (const auto& r : resources->as_array()) {
    if (str(r, "/name") == name) return r;
  }
  return nullptr;
}

std::string strings_of(const json::value& entry, std::string_view pointer) {
  const json::value* v = at(entry, pointer);
  return v != nullptr ? json::dump(*v) : "absent";
}

constexpr std::string_view kAllVerbs = R"(["create","delete","deletecollection","get","list","patch","update","watch"])";

class BuiltinDiscovery : public ServerTest {};

TEST_F(BuiltinDiscovery, ResourceListsDescribeTheNewKinds) {
  struct Expected {
    std::string_view group_version;
    std::string_view name;
    std::string_view kind;
    bool namespaced;
    std::string_view verbs;
    std::string_view short_names;
    std::string_view categories;
    bool status;
  };
  const Expected kinds[] = {
      {"/apis/apps/v1", "deployments", "Deployment", true, kAllVerbs, R"(["deploy"])", R"(["all"])", true},
      {"/api/v1", "services", "Service", true, R"(["create","delete","get","list","patch","update","watch"])", R"(["svc"])",
       R"(["all"])", true},
      {"/api/v1", "secrets", "Secret", true, kAllVerbs, "absent", "absent", false},
      {"/apis/policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", true, kAllVerbs, R"(["pdb"])", "absent", true},
      {"/apis/rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", false, kAllVerbs, "absent", "absent", false},
      {"/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", false, kAllVerbs, "absent",
       "absent", false},
      {"/apis/rbac.authorization.k8s.io/v1", "roles", "Role", true, kAllVerbs, "absent", "absent", false},
      {"/apis/rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", true, kAllVerbs, "absent", "absent", false},
  };
  for (const auto& k : kinds) {
    SCOPED_TRACE(std::string(k.name));
    json::value list = get_ok(k.group_version);
    json::value entry = resource_entry(list, k.name);
    ASSERT_TRUE(entry.is_object());
    EXPECT_EQ(str(entry, "/kind"), k.kind);
    EXPECT_EQ(at(entry, "/namespaced")->as_bool(), k.namespaced);
    EXPECT_EQ(strings_of(entry, "/verbs"), k.verbs);
    EXPECT_EQ(strings_of(entry, "/shortNames"), k.short_names);
    EXPECT_EQ(strings_of(entry, "/categories"), k.categories);
    json::value status = resource_entry(list, std::string(k.name) + "/status");
    EXPECT_EQ(status.is_object(), k.status);
  }
}

TEST_F(BuiltinDiscovery, GroupsAndAggregatedDiscoveryListThem) {
  json::value groups = get_ok("/apis");
  std::string text = json::dump(groups);
  for (std::string_view g : {"\"apps/v1\"", "\"policy/v1\"", "\"rbac.authorization.k8s.io/v1\""}) {
    EXPECT_NE(text.find(g), std::string::npos) << g;
  }
  HttpReply aggregated = api().request("GET", "/apis", {}, "application/json",
                                       {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}});
  ASSERT_EQ(aggregated.status, 200);
  std::string agg = aggregated.body;
  EXPECT_NE(agg.find(R"("resource":"deployments")"), std::string::npos);
  EXPECT_NE(agg.find(R"("resource":"poddisruptionbudgets")"), std::string::npos);
  EXPECT_NE(agg.find(R"("resource":"clusterrolebindings")"), std::string::npos);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
