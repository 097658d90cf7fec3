// ClusterRole aggregation and the default user-facing roles: admin, edit and view hold
// the rules of every ClusterRole labelled aggregate-to-*, kept current as roles come and
// go (edit's rules flow into admin, view's into edit); cluster-admin is bound to
// system:masters; and kueuepp's own viewer roles reach view, edit and admin as on a real
// cluster.

#include <fstream>
#include <sstream>

#include "kube/apiserver/server/controllers/cluster_role_aggregation.hpp"
#include "kube/json/yaml.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kRoles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";

json::value role(std::string_view name, json::object labels, json::array rules) {
  return json::object{{"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}}, {"rules", std::move(rules)}};
}

json::value rule(std::initializer_list<const char*> groups, std::initializer_list<const char*> resources,
                 std::initializer_list<const char*> verbs) {
  auto strings = [](std::initializer_list<const char*> items) {
    json::array out;
    for (const char* s : items) out.emplace_back(s);
    return out;
  };
  return json::object{{"apiGroups", strings(groups)}, {"resources", strings(resources)}, {"verbs", strings(verbs)}};
}

TEST(AggregatedRules, UnionOfMatchingRolesInSelectorThenNameOrderEachRuleOnceWithoutItself) {
  json::value aggregated = json::object{
      {"metadata", json::object{{"name", "agg"}, {"labels", json::object{{"pick", "yes"}}}}},
      {"aggregationRule", json::object{{"clusterRoleSelectors",
                                        json::array{json::object{{"matchLabels", json::object{{"pick", "yes"}}}},
                                                    json::object{{"matchLabels", json::object{{"second", "yes"}}}}}}}},
      {"rules", json::array{rule({"x"}, {"stale"}, {"get"})}}};
  json::value a = role("a", {{"pick", "yes"}}, {rule({""}, {"pods"}, {"get"}), rule({"batch"}, {"jobs"}, {"list"})});
  json::value b = role("b", {{"pick", "yes"}}, {rule({"batch"}, {"jobs"}, {"list"}), rule({""}, {"secrets"}, {"get"})});
  json::value c = role("c", {{"second", "yes"}}, {rule({""}, {"configmaps"}, {"get"})});
  json::value d = role("d", {{"pick", "no"}}, {rule({""}, {"nodes"}, {"get"})});
  json::array rules = aggregated_rules(aggregated, {&a, &aggregated, &b, &c, &d});
  json::array want{rule({""}, {"pods"}, {"get"}), rule({"batch"}, {"jobs"}, {"list"}), rule({""}, {"secrets"}, {"get"}),
                   rule({""}, {"configmaps"}, {"get"})};
  EXPECT_EQ(json::dump(rules), json::dump(want));
  // A role without an aggregation rule aggregates nothing.
  EXPECT_TRUE(aggregated_rules(a, {&a, &b}).empty());
}

class ClusterRoleAggregation : public ServerTest {
 protected:
  json::value rules_of(std::string_view name) {
    json::value role = get_ok(std::string(kRoles) + "/" + std::string(name));
    const json::value* rules = json::find(role, "rules");
    return rules != nullptr ? *rules : json::value(json::array{});
  }
  bool holds(std::string_view name, const json::value& wanted) {
    const json::value rules = rules_of(name);
    if (!rules.is_array()) return false;
    for (const json::value& r : rules.get_array()) {
      if (json::equal(r, wanted)) return true;
    }
    return false;
  }
  bool allowed(std::string_view user, std::string_view ns, std::string_view group, std::string_view resource,
               std::string_view verb) {
    json::value review = json::object{
        {"apiVersion", "authorization.k8s.io/v1"},
        {"kind", "SubjectAccessReview"},
        {"spec", json::object{{"user", user},
                              {"resourceAttributes", json::object{{"namespace", ns}, {"group", group},
                                                                  {"resource", resource}, {"verb", verb}}}}}};
    json::value answer = expect(201, api().post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review));
    const json::value* ok = json::find_path(answer, {"status", "allowed"});
    return ok != nullptr && ok->is_bool() && ok->get_bool();
  }
};

TEST_F(ClusterRoleAggregation, TheDefaultRolesAreThereAndAggregated) {
  const json::value jobs_view = rule({"batch"}, {"cronjobs", "cronjobs/status", "jobs", "jobs/status"}, {"get", "list", "watch"});
  const json::value jobs_edit = rule({"batch"}, {"cronjobs", "jobs"}, {"create", "delete", "deletecollection", "patch", "update"});
  ASSERT_TRUE(wait_until([&] { return holds("admin", jobs_view) && holds("admin", jobs_edit); }));
  EXPECT_TRUE(holds("view", jobs_view));
  EXPECT_FALSE(holds("view", jobs_edit));
  EXPECT_TRUE(holds("edit", jobs_view));
  EXPECT_TRUE(holds("edit", jobs_edit));
  json::value admin_binding = get_ok("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin");
  EXPECT_EQ(json::dump(*json::find(admin_binding, "subjects")),
            R"([{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:masters"}])");
}

TEST_F(ClusterRoleAggregation, ALabelledRoleJoinsViewEditAndAdminAndLeavesWhenDeleted) {
  const json::value widgets = rule({"example.com"}, {"widgets"}, {"get", "list"});
  create(kRoles, role("widget-viewer", {{"rbac.authorization.k8s.io/aggregate-to-view", "true"}}, {widgets}));
  EXPECT_TRUE(wait_until([&] { return holds("view", widgets) && holds("edit", widgets) && holds("admin", widgets); }));

  // A user bound to view in a namespace may now read widgets there.
  make_namespace("team");
  create("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
         json::object{{"metadata", json::object{{"name", "carol-view"}}},
                      {"roleRef", json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "view"}}},
                      {"subjects", json::array{json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", "carol"}}}}});
  EXPECT_TRUE(allowed("carol", "team", "example.com", "widgets", "list"));
  EXPECT_FALSE(allowed("carol", "other", "example.com", "widgets", "list"));

  expect(200, api().del(std::string(kRoles) + "/widget-viewer"));
  EXPECT_TRUE(wait_until([&] { return !holds("view", widgets) && !holds("edit", widgets) && !holds("admin", widgets); }));
  EXPECT_FALSE(allowed("carol", "team", "example.com", "widgets", "list"));
}

TEST_F(ClusterRoleAggregation, AUsersOwnAggregatedRoleFollowsItsSelector) {
  const json::value leases = rule({"coordination.k8s.io"}, {"leases"}, {"get"});
  create(kRoles, json::object{{"metadata", json::object{{"name", "ops"}}},
                              {"aggregationRule", json::object{{"clusterRoleSelectors", json::array{json::object{
                                                                    {"matchLabels", json::object{{"team", "ops"}}}}}}}}});
  create(kRoles, role("ops-leases", {{"team", "ops"}}, {leases}));
  EXPECT_TRUE(wait_until([&] { return holds("ops", leases); }));
  // The label removed: the rule goes.
  expect(200, api().patch(std::string(kRoles) + "/ops-leases", json::object{{"metadata", json::object{{"labels", nullptr}}}}));
  EXPECT_TRUE(wait_until([&] { return !holds("ops", leases); }));
}

TEST_F(ClusterRoleAggregation, KueueppViewerRolesReachView) {
  std::ifstream in(std::string(KUEUEPP_SOURCE_DIR) + "/deploy/visibility/viewer_roles.yaml");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = json::parse_yaml_documents(text.str());
  ASSERT_TRUE(docs) << docs.error().message;
  for (const json::value& doc : *docs) {
    if (json::get_string(doc, "kind") == "ClusterRole") create(kRoles, doc);
  }
  EXPECT_TRUE(wait_until([&] {
    return holds("view", rule({"visibility.kueue.x-k8s.io"}, {"localqueues/pendingworkloads"}, {"get", "list", "watch"}));
  }));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
