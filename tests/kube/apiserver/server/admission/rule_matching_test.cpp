// Which webhooks a request reaches (kube-apiserver's rules, selectors and match policy),
// on the matching functions alone.

#include <gtest/gtest.h>

#include "kube/apiserver/server/admission/rule_matching.hpp"

namespace kueuepp::kube::server {
namespace {

WebhookRule rule(std::vector<std::string> ops, std::vector<std::string> groups, std::vector<std::string> versions,
                 std::vector<std::string> resources, std::string scope = "*") {
  return WebhookRule{std::move(ops), std::move(groups), std::move(versions), std::move(resources), std::move(scope)};
}

RequestResource job_create() { return {"batch", "v1", "jobs", "", "CREATE", "team"}; }

TEST(RuleMatching, OperationsGroupsVersionsAndResourcesMustAllMatch) {
  EXPECT_TRUE(rule_matches(rule({"CREATE"}, {"batch"}, {"v1"}, {"jobs"}), job_create()));
  EXPECT_FALSE(rule_matches(rule({"UPDATE"}, {"batch"}, {"v1"}, {"jobs"}), job_create()));
  EXPECT_FALSE(rule_matches(rule({"CREATE"}, {"apps"}, {"v1"}, {"jobs"}), job_create()));
  EXPECT_FALSE(rule_matches(rule({"CREATE"}, {"batch"}, {"v1beta1"}, {"jobs"}), job_create()));
  EXPECT_FALSE(rule_matches(rule({"CREATE"}, {"batch"}, {"v1"}, {"pods"}), job_create()));
  EXPECT_TRUE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"*"}), job_create()));
}

TEST(RuleMatching, SubresourcesAreNamedOrWildcarded) {
  RequestResource status{"batch", "v1", "jobs", "status", "UPDATE", "team"};
  EXPECT_FALSE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"jobs"}), status));
  EXPECT_FALSE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"*"}), status));
  EXPECT_TRUE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"jobs/status"}), status));
  EXPECT_TRUE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"*/status"}), status));
  EXPECT_TRUE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"jobs/*"}), status));
  EXPECT_TRUE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"*/*"}), status));
  EXPECT_FALSE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"jobs/scale"}), status));
  EXPECT_FALSE(rule_matches(rule({"*"}, {"*"}, {"*"}, {"jobs/status"}), job_create()));
}

TEST(RuleMatching, ScopeSeparatesNamespacedObjectsFromClusterOnesAndNamespaces) {
  RequestResource ns_create{"", "v1", "namespaces", "", "CREATE", "team"};
  RequestResource pc_create{"scheduling.k8s.io", "v1", "priorityclasses", "", "CREATE", ""};
  auto any = [](std::string scope) { return rule({"*"}, {"*"}, {"*"}, {"*"}, std::move(scope)); };
  EXPECT_TRUE(rule_matches(any("Namespaced"), job_create()));
  EXPECT_FALSE(rule_matches(any("Cluster"), job_create()));
  EXPECT_FALSE(rule_matches(any("Namespaced"), ns_create));  // a Namespace is cluster-scoped
  EXPECT_TRUE(rule_matches(any("Cluster"), ns_create));
  EXPECT_TRUE(rule_matches(any("Cluster"), pc_create));
  EXPECT_FALSE(rule_matches(any("Namespaced"), pc_create));
}

TEST(NamespaceSelector, ClusterScopedObjectsAreNeverExemptedNamespacesUseTheirOwnLabels) {
  json::value prod = json::object{{"matchLabels", json::object{{"env", "prod"}}}};
  json::value prod_labels = json::object{{"env", "prod"}};
  json::value dev_labels = json::object{{"env", "dev"}};
  auto lookup = [&](std::string_view ns) -> std::optional<const json::value*> {
    if (ns == "p") return &prod_labels;
    if (ns == "d") return &dev_labels;
    return std::nullopt;
  };
  RequestResource in_p{"batch", "v1", "jobs", "", "CREATE", "p"};
  RequestResource in_d{"batch", "v1", "jobs", "", "CREATE", "d"};
  RequestResource in_missing{"batch", "v1", "jobs", "", "CREATE", "gone"};
  RequestResource cluster{"scheduling.k8s.io", "v1", "priorityclasses", "", "CREATE", ""};
  RequestResource new_ns{"", "v1", "namespaces", "", "CREATE", "fresh"};
  EXPECT_EQ(namespace_selector_matches(prod, in_p, nullptr, lookup), true);
  EXPECT_EQ(namespace_selector_matches(prod, in_d, nullptr, lookup), false);
  EXPECT_EQ(namespace_selector_matches(prod, in_missing, nullptr, lookup), std::nullopt);
  EXPECT_EQ(namespace_selector_matches(prod, cluster, nullptr, lookup), true);
  EXPECT_EQ(namespace_selector_matches(prod, new_ns, &prod_labels, lookup), true);
  EXPECT_EQ(namespace_selector_matches(prod, new_ns, &dev_labels, lookup), false);
  EXPECT_EQ(namespace_selector_matches(json::object{}, in_missing, nullptr, lookup), true);
}

TEST(ObjectSelector, MatchesTheNewOrTheOldObject) {
  json::value sel = json::object{{"matchLabels", json::object{{"a", "b"}}}};
  json::value with = json::object{{"metadata", json::object{{"labels", json::object{{"a", "b"}}}}}};
  json::value without = json::object{{"metadata", json::object{}}};
  EXPECT_TRUE(object_selector_matches(sel, &with, nullptr));
  EXPECT_TRUE(object_selector_matches(sel, &without, &with));
  EXPECT_FALSE(object_selector_matches(sel, &without, nullptr));
  EXPECT_FALSE(object_selector_matches(sel, nullptr, nullptr));
  json::value not_a = json::object{{"matchExpressions", json::array{json::object{{"key", "a"}, {"operator", "DoesNotExist"}}}}};
  EXPECT_TRUE(object_selector_matches(not_a, &without, nullptr));
  EXPECT_TRUE(object_selector_matches(json::object{}, nullptr, nullptr));
}

TEST(MatchPolicy, EquivalentFindsAnotherVersionExactDoesNot) {
  auto v1 = std::make_shared<ResourceType>();
  v1->group = "example.com";
  v1->version = "v1";
  v1->plural = "widgets";
  v1->bucket = "example.com/widgets";
  auto v2 = std::make_shared<ResourceType>(*v1);
  v2->version = "v2";
  Webhook hook;
  hook.rules = {rule({"CREATE"}, {"example.com"}, {"v1"}, {"widgets"})};
  RequestResource as_v2{"example.com", "v2", "widgets", "", "CREATE", "team"};
  EXPECT_EQ(matching_resource(hook, as_v2, v2, {v1, v2}), v1);
  hook.exact = true;
  EXPECT_EQ(matching_resource(hook, as_v2, v2, {v1, v2}), nullptr);
  RequestResource as_v1{"example.com", "v1", "widgets", "", "CREATE", "team"};
  EXPECT_EQ(matching_resource(hook, as_v1, v1, {v1, v2}), v1);
}

}  // namespace
}  // namespace kueuepp::kube::server
