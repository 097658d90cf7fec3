#include "core/model/scheduling.hpp"

#include <gtest/gtest.h>

#include "core/model/labels.hpp"
#include "core/model/resources.hpp"

namespace kueuepp::core {
namespace {

Quantity q(const char* s) { return *Quantity::parse(s); }

TEST(Tolerations, FollowKubernetesMatchingRules) {
  Taint t{"gpu", "true", TaintEffect::NoSchedule};
  EXPECT_TRUE((Toleration{"gpu", Toleration::Op::Equal, "true", std::nullopt}).tolerates(t));
  EXPECT_FALSE((Toleration{"gpu", Toleration::Op::Equal, "false", std::nullopt}).tolerates(t));
  EXPECT_TRUE((Toleration{"gpu", Toleration::Op::Exists, "", std::nullopt}).tolerates(t));
  EXPECT_TRUE((Toleration{"", Toleration::Op::Exists, "", std::nullopt}).tolerates(t));
  EXPECT_FALSE((Toleration{"gpu", Toleration::Op::Exists, "", TaintEffect::NoExecute}).tolerates(t));
  EXPECT_TRUE((Toleration{"gpu", Toleration::Op::Exists, "", TaintEffect::NoSchedule}).tolerates(t));
  EXPECT_EQ(t.to_string(), "gpu=true:NoSchedule");
}

TEST(Tolerations, PreferNoScheduleNeverBlocksAndFlavorTolerationsCount) {
  std::vector<Taint> taints{{"a", "", TaintEffect::PreferNoSchedule}, {"b", "x", TaintEffect::NoExecute}};
  EXPECT_EQ(first_untolerated_taint(taints, {}, {})->key, "b");
  std::vector<Toleration> flavor{{"b", Toleration::Op::Equal, "x", std::nullopt}};
  EXPECT_EQ(first_untolerated_taint(taints, {}, flavor), nullptr);
}

TEST(Placement, NodeSelectorOnlyConsidersKeysTheFlavorLabels) {
  PodPlacement p;
  p.node_selector = {{"zone", "a"}, {"team", "x"}};
  EXPECT_TRUE(placement_matches_flavor_labels(p, {{"zone", "a"}}));
  EXPECT_FALSE(placement_matches_flavor_labels(p, {{"zone", "b"}}));
  EXPECT_TRUE(placement_matches_flavor_labels(p, {}));
}

TEST(Placement, RequiredAffinityTermsAreOredAndFilteredByFlavorKeys) {
  PodPlacement p;
  using Op = NodeSelectorRequirement::Op;
  p.required_affinity = std::vector<NodeSelectorTerm>{
      {{{"zone", Op::In, {"a", "b"}}, {"arch", Op::NotIn, {"arm"}}}},
  };
  EXPECT_TRUE(placement_matches_flavor_labels(p, {{"zone", "a"}, {"arch", "x86"}}));
  EXPECT_FALSE(placement_matches_flavor_labels(p, {{"zone", "c"}}));
  EXPECT_FALSE(placement_matches_flavor_labels(p, {{"zone", "a"}, {"arch", "arm"}}));
  // A term whose keys the flavor does not label matches any flavor.
  EXPECT_TRUE(placement_matches_flavor_labels(p, {{"other", "1"}}));
  p.required_affinity->push_back({{{"zone", Op::In, {"c"}}}});
  EXPECT_TRUE(placement_matches_flavor_labels(p, {{"zone", "c"}}));
  NodeSelectorRequirement gt{"size", Op::Gt, {"4"}};
  EXPECT_TRUE(gt.matches({{"size", "8"}}));
  EXPECT_FALSE(gt.matches({{"size", "2"}}));
  EXPECT_FALSE(gt.matches({{"size", "big"}}));
}

TEST(LabelSelector, MatchesLikeKubernetes) {
  LabelSelector s;
  EXPECT_TRUE(s.matches({}));
  s.match_labels = {{"team", "a"}};
  EXPECT_TRUE(s.matches({{"team", "a"}, {"x", "y"}}));
  EXPECT_FALSE(s.matches({{"team", "b"}}));
  s.match_expressions = {{"env", LabelSelectorRequirement::Op::NotIn, {"prod"}}};
  EXPECT_TRUE(s.matches({{"team", "a"}}));  // NotIn matches a missing key
  EXPECT_FALSE(s.matches({{"team", "a"}, {"env", "prod"}}));
}

TEST(PodRequests, SumContainersAndTakeTheLargestInitPhase) {
  PodResources pod;
  pod.containers = {{{{"cpu", q("1")}}, {}, false}, {{{"cpu", q("500m")}, {"memory", q("1Gi")}}, {}, false}};
  pod.init_containers = {{{{"cpu", q("3")}}, {}, false}};
  auto r = pod_requests(pod);
  EXPECT_EQ(r.at("cpu").milli(), 3000);  // init container 3 > 1.5
  EXPECT_EQ(r.at("memory"), q("1Gi"));
}

TEST(PodRequests, SidecarsRunAlongsideAndLimitsStandInForRequests) {
  PodResources pod;
  pod.containers = {{{}, {{"cpu", q("2")}}, false}};          // limit only
  pod.init_containers = {{{{"cpu", q("1")}}, {}, true},        // sidecar
                         {{{"cpu", q("2")}}, {}, false}};      // runs with the sidecar: 3
  pod.overhead = {{"cpu", q("100m")}};
  auto r = pod_requests(pod);
  // Regular phase: 2 + sidecar 1 = 3; init phase: 2 + 1 = 3; + overhead.
  EXPECT_EQ(r.at("cpu").milli(), 3100);
}

TEST(PodRequests, PodLevelResourcesOverrideContainerTotals) {
  PodResources pod;
  pod.containers = {{{{"cpu", q("1")}, {"memory", q("1Gi")}}, {}, false}};
  pod.pod_level = ContainerResources{{{"cpu", q("4")}}, {}, false};
  auto r = pod_requests(pod);
  EXPECT_EQ(r.at("cpu").milli(), 4000);
  EXPECT_EQ(r.at("memory"), q("1Gi"));
}

TEST(PodRequests, RequestAboveLimitIsReported) {
  ContainerResources c{{{"cpu", q("2")}}, {{"cpu", q("1")}}, false};
  EXPECT_EQ(request_exceeding_limit(c), "cpu");
}

}  // namespace
}  // namespace kueuepp::core
