#include "kube/webhook/kueue_kind_webhooks.hpp"

#include <gtest/gtest.h>

#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

using testing::patched;
using testing::request;
using testing::yaml;

std::string refusal(const FieldErrors& errors) { return errors.empty() ? "" : aggregate(errors); }

TEST(ClusterQueueWebhook, QuotasAndLimitsWithKueuesMessages) {
  struct Case {
    const char* name;
    const char* spec;
    const char* message;
  };
  const Case cases[] = {
      {"a valid queue",
       "{cohortName: c, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, "
       "nominalQuota: 4, lendingLimit: 2, borrowingLimit: 1}]}]}]}",
       ""},
      {"a negative quota",
       "{resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: '-1'}]}]}]}",
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: \"-1\": must be greater than or "
       "equal to 0"},
      {"lending above the nominal quota",
       "{cohortName: c, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, "
       "nominalQuota: 2, lendingLimit: 3}]}]}]}",
       "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"3\": must be less than or equal "
       "to the nominalQuota"},
      {"a borrowing limit without a cohort",
       "{resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2, "
       "borrowingLimit: 1}]}]}]}",
       "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: Invalid value: \"1\": must be nil when cohort "
       "is empty"},
      {"resources out of coveredResources' order",
       "{resourceGroups: [{coveredResources: [cpu, memory], flavors: [{name: f, resources: [{name: memory, "
       "nominalQuota: 1}, {name: cpu, nominalQuota: 1}]}]}]}",
       "[spec.resourceGroups[0].flavors[0].resources[0].name: Invalid value: \"memory\": must match the name in "
       "coveredResources, spec.resourceGroups[0].flavors[0].resources[1].name: Invalid value: \"cpu\": must match the "
       "name in coveredResources]"},
      {"a flavor twice",
       "{resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1}]}]}, "
       "{coveredResources: [memory], flavors: [{name: f, resources: [{name: memory, nominalQuota: 1}]}]}]}",
       "spec.resourceGroups[1].flavors[0].name: Duplicate value: \"f\""},
      {"reclaimWithinCohort Never with borrowWithinCohort",
       "{preemption: {reclaimWithinCohort: Never, borrowWithinCohort: {policy: LowerPriority}}}",
       "spec.preemption: Invalid value: {\"reclaimWithinCohort\":\"Never\",\"borrowWithinCohort\":{\"policy\":"
       "\"LowerPriority\"}}: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"},
      {"a flavor preference without TryNextFlavor",
       "{flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor, preference: BorrowingOverPreemption}}",
       "spec.flavorFungibility.preference: Invalid value: \"BorrowingOverPreemption\": preference "
       "\"BorrowingOverPreemption\" requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor"},
      {"an admission check on a flavor the queue lacks",
       "{resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1}]}]}], "
       "admissionChecksStrategy: {admissionChecks: [{name: ac, onFlavors: [g]}]}}",
       "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]: Unsupported value: \"g\": supported values: "
       "\"f\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    json::value cq = yaml(std::string("{metadata: {name: cq}, spec: ") + c.spec + "}");
    EXPECT_EQ(refusal(validate_cluster_queue(cq, nullptr)), c.message);
  }
}

TEST(CohortWebhook, LimitsNeedAParentAndLendingIsNotCapped) {
  json::value orphan = yaml(
      "{spec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, "
      "lendingLimit: 5}]}]}]}}");
  EXPECT_EQ(refusal(validate_cohort(orphan)),
            "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"5\": must be nil when parent "
            "is empty");
  json::value child = yaml(
      "{spec: {parentName: root, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: "
      "cpu, nominalQuota: 1, lendingLimit: 5}]}]}]}}");
  EXPECT_EQ(refusal(validate_cohort(child)), "");
  EXPECT_EQ(refusal(validate_cohort(yaml("{spec: {fairSharing: {weight: '-1'}}}"))),
            "spec.fairSharing: Invalid value: \"-1\": must be greater than or equal to 0");
}

TEST(ResourceFlavorWebhook, TaintsAreUniqueByKeyAndEffect) {
  json::value rf = yaml(
      "{spec: {nodeTaints: [{key: a, value: x, effect: NoSchedule}, {key: a, value: y, effect: NoExecute}, {key: a, "
      "value: z, effect: NoSchedule}]}}");
  EXPECT_EQ(refusal(validate_resource_flavor(rf)),
            "spec.nodeTaints[2]: Duplicate value: v1.Taint{Key:\"a\", Value:\"z\", Effect:\"NoSchedule\", "
            "TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair");
}

TEST(KueueKindDefaulting, TheResourceInUseFinalizerIsAddedOnce) {
  auto bare = request(Operation::Create, "{metadata: {name: cq}}", {}, "");
  json::value out = patched(bare, default_with_resource_in_use_finalizer(bare));
  EXPECT_EQ(json::dump(*json::find_path(out, {"metadata", "finalizers"})), R"(["kueue.x-k8s.io/resource-in-use"])");
  auto other = request(Operation::Create, "{metadata: {name: cq, finalizers: [x]}}", {}, "");
  out = patched(other, default_with_resource_in_use_finalizer(other));
  EXPECT_EQ(json::dump(*json::find_path(out, {"metadata", "finalizers"})), R"(["x","kueue.x-k8s.io/resource-in-use"])");
  auto has = request(Operation::Create, "{metadata: {name: cq, finalizers: [kueue.x-k8s.io/resource-in-use]}}", {}, "");
  EXPECT_TRUE(default_with_resource_in_use_finalizer(has).patch.empty());
}

TEST(KueueKindValidation, RefusalsAre403WithTheAggregate) {
  auto r = request(Operation::Create,
                   "{spec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, "
                   "nominalQuota: '-2'}]}]}]}}",
                   {}, "");
  auto response = review_cluster_queue(r);
  ASSERT_FALSE(response.allowed);
  EXPECT_EQ(response.status->code, 403);
  EXPECT_NE(response.status->message.find("must be greater than or equal to 0"), std::string::npos);
  r.operation = Operation::Delete;
  EXPECT_TRUE(review_cluster_queue(r).allowed);
}

}  // namespace
}  // namespace kueuepp::kube::webhook
