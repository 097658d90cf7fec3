#include "kube/jobs/workload_retention.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fixtures.hpp"

namespace kueuepp::kube::jobs {
namespace {

using std::chrono::milliseconds;
using testing::at;
using testing::object;

client::Object workload(const std::string& spec_extra, const std::string& conditions) {
  return object("metadata: {name: w, namespace: ns}\nspec: {queueName: q" + spec_extra + "}\nstatus:\n  conditions:\n" +
                conditions);
}

constexpr const char* kFinished =
    "  - {type: Finished, status: \"True\", reason: Succeeded, message: done, lastTransitionTime: \"2026-01-01T00:00:10Z\"}\n";

std::string evicted(const std::string& reason) {
  return "  - {type: Evicted, status: \"True\", reason: " + reason +
         ", message: x, lastTransitionTime: \"2026-01-01T00:00:20Z\"}\n";
}

TEST(FinishedRetention, RunsFromTheFinishedTransition) {
  auto wl = workload("", kFinished);
  EXPECT_EQ(finished_retention_deadline(wl, milliseconds(60000)), at(70));
  EXPECT_EQ(finished_retention_deadline(wl, milliseconds(0)), at(10));
}

TEST(FinishedRetention, NothingForAWorkloadNotFinished) {
  EXPECT_EQ(finished_retention_deadline(workload("", evicted("Preempted")), milliseconds(0)), std::nullopt);
  auto not_yet = workload("", "  - {type: Finished, status: \"False\", reason: x, message: x, "
                              "lastTransitionTime: \"2026-01-01T00:00:10Z\"}\n");
  EXPECT_EQ(finished_retention_deadline(not_yet, milliseconds(0)), std::nullopt);
}

TEST(DeactivatedRetention, RunsFromTheEvictionOfAWorkloadKueueDeactivated) {
  for (const char* reason : {"DeactivatedDueToMaximumExecutionTimeExceeded", "DeactivatedDueToRequeuingLimitExceeded",
                             "DeactivatedDueToAdmissionCheck"}) {
    auto wl = workload(", active: false", evicted(reason));
    EXPECT_TRUE(deactivated_by_kueue(wl)) << reason;
    EXPECT_EQ(deactivated_retention_deadline(wl, milliseconds(5000)), at(25)) << reason;
  }
}

TEST(DeactivatedRetention, AUsersDeactivationOrAReactivationKeepsTheJob) {
  auto by_user = workload(", active: false", evicted("Deactivated"));
  EXPECT_FALSE(deactivated_by_kueue(by_user));
  EXPECT_EQ(deactivated_retention_deadline(by_user, milliseconds(0)), std::nullopt);
  auto reactivated = workload(", active: true", evicted("DeactivatedDueToMaximumExecutionTimeExceeded"));
  EXPECT_EQ(deactivated_retention_deadline(reactivated, milliseconds(0)), std::nullopt);
  EXPECT_EQ(deactivated_retention_deadline(workload(", active: false", evicted("Preempted")), milliseconds(0)),
            std::nullopt);
}

}  // namespace
}  // namespace kueuepp::kube::jobs
