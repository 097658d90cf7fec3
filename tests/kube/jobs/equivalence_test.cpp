#include "kube/jobs/equivalence.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/jobs/job_start_stop.hpp"
#include "kube/jobs/workload_builder.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

class EquivalenceTest : public ::testing::Test {
 protected:
  client::Object job = object(testing::kJob);
  client::Object flavor = object(testing::kFlavor);
  FlavorLookup lookup = [this](std::string_view name) -> const client::Object* {
    return name == "default-flavor" ? &flavor : nullptr;
  };
  client::Object fresh() { return *build_workload(job, BuildOptions{}); }
};

TEST_F(EquivalenceTest, FreshWorkloadMatches) { EXPECT_TRUE(equivalent_to_workload(job, fresh(), lookup)); }

TEST_F(EquivalenceTest, OwnerMustMatch) {
  client::Object wl = fresh();
  client::Object other = job;
  other.set_name("other");
  EXPECT_FALSE(equivalent_to_workload(other, wl, lookup));
  other = job;
  other.json().as_object()["metadata"].as_object()["uid"] = "uid-2";
  EXPECT_FALSE(equivalent_to_workload(other, wl, lookup));
  EquivalenceOptions no_uid;
  no_uid.match_owner_uid = false;
  EXPECT_TRUE(equivalent_to_workload(other, wl, lookup, no_uid));
  wl.erase({"metadata", "ownerReferences"});
  EXPECT_FALSE(equivalent_to_workload(job, wl, lookup));
}

TEST_F(EquivalenceTest, CountAndMinCountMatter) {
  client::Object wl = fresh();
  job.ensure({"spec", "parallelism"}) = 2;
  EXPECT_FALSE(equivalent_to_workload(job, wl, lookup));
  job = object(testing::kJob);
  job.set_annotation("kueue.x-k8s.io/job-min-parallelism", "1");
  EXPECT_FALSE(equivalent_to_workload(job, wl, lookup));
  EquivalenceOptions no_partial;
  no_partial.pod_sets.partial_admission = false;
  EXPECT_TRUE(equivalent_to_workload(job, wl, lookup, no_partial));
}

TEST_F(EquivalenceTest, ContainersMatterLabelsDoNot) {
  client::Object wl = fresh();
  job.set_label("new", "label");
  job.ensure({"spec", "template", "metadata", "labels", "x"}) = "y";
  job.ensure({"spec", "template", "spec", "nodeSelector"}) = yaml("{a: b}");
  EXPECT_TRUE(equivalent_to_workload(job, wl, lookup));
  job.ensure({"spec", "template", "spec", "containers"}).as_array()[0].as_object()["image"] = "alpine";
  EXPECT_FALSE(equivalent_to_workload(job, wl, lookup));
}

TEST_F(EquivalenceTest, QuantitiesCompareByAmount) {
  client::Object wl = fresh();
  job.ensure({"spec", "template", "spec", "containers"}).as_array()[0].as_object()["resources"] =
      yaml("{requests: {cpu: 1000m, memory: 200Mi}}");
  EXPECT_TRUE(equivalent_to_workload(job, wl, lookup));
}

TEST_F(EquivalenceTest, MaxExecutionTime) {
  client::Object wl = fresh();
  job.set_label("kueue.x-k8s.io/max-exec-time-seconds", "60");
  EXPECT_FALSE(equivalent_to_workload(job, wl, lookup));
  wl.ensure({"spec", "maximumExecutionTimeSeconds"}) = 60;
  EXPECT_TRUE(equivalent_to_workload(job, wl, lookup));
}

TEST_F(EquivalenceTest, TolerationsMatterUntilAdmitted) {
  client::Object wl = fresh();
  job.ensure({"spec", "template", "spec", "tolerations"}) = yaml("[{key: user, operator: Exists}]");
  EXPECT_FALSE(equivalent_to_workload(job, wl, lookup));
  wl.ensure({"status", "conditions"}) = yaml(R"([{type: Admitted, status: "True", reason: Admitted, message: m}])");
  EXPECT_TRUE(equivalent_to_workload(job, wl, lookup));
}

TEST_F(EquivalenceTest, RunningJobMatchesAdmittedWorkload) {
  client::Object wl = object(testing::kAdmittedWorkload);
  auto started = start_job(job, wl, lookup);
  ASSERT_TRUE(started.has_value()) << started.error().message;
  EXPECT_TRUE(equivalent_to_workload(started->job, wl, lookup));
  // Suspended again but not yet restored: still the Workload's Job.
  EXPECT_TRUE(equivalent_to_workload(job, wl, lookup));
}

TEST_F(EquivalenceTest, ReservedButNotAdmittedComparesWithInjectedTolerations) {
  client::Object wl = object(testing::kAdmittedWorkload);
  wl.ensure({"status", "conditions"}) =
      yaml(R"([{type: QuotaReserved, status: "True", reason: QuotaReserved, message: m}])");
  auto started = start_job(job, wl, lookup);
  ASSERT_TRUE(started.has_value());
  // The running Job carries the flavor's toleration: it matches the running pod sets.
  EXPECT_TRUE(equivalent_to_workload(started->job, wl, lookup));
  // Without the flavor the running comparison cannot be built: compare with the spec.
  FlavorLookup none = [](std::string_view) -> const client::Object* { return nullptr; };
  EXPECT_FALSE(equivalent_to_workload(started->job, wl, none));
}

TEST_F(EquivalenceTest, PartialAdmissionRunningCount) {
  job.set_annotation("kueue.x-k8s.io/job-min-parallelism", "1");
  client::Object wl = *build_workload(job, BuildOptions{});
  wl.ensure({"status"}) = object(testing::kAdmittedWorkload).json().at("status");
  wl.ensure({"status", "admission", "podSetAssignments"}).as_array()[0].as_object()["count"] = 2;
  auto started = start_job(job, wl, lookup);
  ASSERT_TRUE(started.has_value());
  EXPECT_EQ(started->job.int_at({"spec", "parallelism"}), 2);
  EXPECT_TRUE(equivalent_to_workload(started->job, wl, lookup));
}

TEST(PodSetsEquivalent, Basics) {
  EXPECT_TRUE(pod_sets_equivalent(yaml("[{name: a, count: 1}]"), yaml("[{name: b, count: 1}]"), false));
  EXPECT_FALSE(pod_sets_equivalent(yaml("[{count: 1}]"), yaml("[{count: 1}, {count: 1}]"), false));
  EXPECT_FALSE(pod_sets_equivalent(yaml("[{count: 1, minCount: 1}]"), yaml("[{count: 1}]"), false));
  EXPECT_TRUE(pod_sets_equivalent(yaml("[]"), json::value(nullptr), false));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
