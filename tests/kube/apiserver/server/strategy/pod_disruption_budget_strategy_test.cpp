// policy/v1 PodDisruptionBudget: the zero status of a create, minAvailable and
// maxUnavailable validation, the mutable spec and its generation, the status
// subresource, over HTTP.

#include "tests/kube/apiserver/server/strategy/builtin_kind_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kBudgets = "/apis/policy/v1/namespaces/team/poddisruptionbudgets";
constexpr std::string_view kBudget = "/apis/policy/v1/namespaces/team/poddisruptionbudgets/web";

std::string budget(std::string_view bounds) {
  return "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n" + std::string(bounds) +
         "  selector:\n    matchLabels: {app: web}\n";
}

class PodDisruptionBudgetStrategy : public BuiltinKindTest {};

TEST_F(PodDisruptionBudgetStrategy, CreateStartsWithZeroStatus) {
  json::value created = create_yaml(kBudgets, budget("  minAvailable: 1\n"));
  EXPECT_EQ(num(created, "/spec/minAvailable"), 1);
  EXPECT_EQ(num(created, "/metadata/generation"), 1);
  EXPECT_EQ(json::dump(*at(created, "/status")),
            R"({"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0})");
}

TEST_F(PodDisruptionBudgetStrategy, MinAvailableAndMaxUnavailableAreExclusive) {
  auto both = invalid(post_yaml(kBudgets, budget("  minAvailable: 1\n  maxUnavailable: 1\n")));
  ASSERT_EQ(both.size(), 1u);
  EXPECT_EQ(both[0].substr(0, 20), "spec: Invalid value:");
  EXPECT_NE(both[0].find("minAvailable and maxUnavailable cannot be both set"), std::string::npos);
}

TEST_F(PodDisruptionBudgetStrategy, BoundsAreCountsOrPercentages) {
  create_yaml(kBudgets, budget("  maxUnavailable: 50%\n"));
  auto over = invalid(post_yaml(kBudgets, budget("  minAvailable: 120%\n")));
  EXPECT_EQ(over, std::vector<std::string>{"spec.minAvailable: Invalid value: \"120%\": must not be greater than 100%"});
  auto word = invalid(post_yaml(kBudgets, budget("  maxUnavailable: half\n")));
  EXPECT_TRUE(any_contains(word, "spec.maxUnavailable: Invalid value: \"half\": a valid percent string must be"));
  auto negative = invalid(post_yaml(kBudgets, budget("  minAvailable: -1\n")));
  EXPECT_EQ(negative, std::vector<std::string>{"spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"});
  auto selector = invalid(post_yaml(kBudgets, "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: s\nspec:\n"
                                              "  selector:\n    matchExpressions: [{key: app, operator: Near}]\n"));
  EXPECT_TRUE(any_contains(selector, "spec.selector.matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator"));
}

TEST_F(PodDisruptionBudgetStrategy, SpecChangesBumpGenerationStatusWritesDoNot) {
  create_yaml(kBudgets, budget("  minAvailable: 1\n"));
  json::value changed = expect(200, api().patch(kBudget, json::object{{"spec", json::object{{"minAvailable", "50%"}}}}));
  EXPECT_EQ(str(changed, "/spec/minAvailable"), "50%");
  EXPECT_EQ(num(changed, "/metadata/generation"), 2);
  json::value status = expect(200, api().patch(std::string(kBudget) + "/status",
                                               json::object{{"status", json::object{{"disruptionsAllowed", 1}, {"expectedPods", 2}}},
                                                            {"spec", json::object{{"minAvailable", 0}}}}));
  EXPECT_EQ(num(status, "/status/disruptionsAllowed"), 1);
  EXPECT_EQ(num(status, "/status/currentHealthy"), 0);
  EXPECT_EQ(str(status, "/spec/minAvailable"), "50%");
  EXPECT_EQ(num(status, "/metadata/generation"), 2);
  auto errs = invalid(api().patch(std::string(kBudget) + "/status", json::object{{"status", json::object{{"expectedPods", -2}}}}));
  EXPECT_EQ(errs, std::vector<std::string>{"status.expectedPods: Invalid value: -2: must be greater than or equal to 0"});
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
