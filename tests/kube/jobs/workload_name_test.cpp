#include "kube/jobs/workload_name.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kueuepp::kube::jobs {
namespace {

// Expected hashes computed by hand: python3 -c 'import hashlib;
// print(hashlib.sha1(b"Job\nbatch\n<name>\n<uid>").hexdigest()[:5])'

TEST(WorkloadName, ShortJobName) {
  EXPECT_EQ(workload_name_for_job("sample-job", "uid-1"), "job-sample-job-2e47a");
  EXPECT_EQ(workload_name_for_job("sample-job", "uid-2"), "job-sample-job-7cdcb");
}

TEST(WorkloadName, MatchesKueuesOwnTestVectors) {
  EXPECT_EQ(workload_name_for_job("name", "uid"), "job-name-ef3a1");
  EXPECT_EQ(workload_name_for_owner({"name", "uid", "batch", "Job"}, kLongMaxWorkloadNameLength, "1"),
            "job-name-2514c");
}

TEST(WorkloadName, EmptyUidStillHashesTheSeparator) {
  EXPECT_EQ(workload_name_for_job("sample-job", ""), "job-sample-job-4b8c4");
}

TEST(WorkloadName, LongNameTruncatedTo253) {
  std::string long_name(300, 'a');
  std::string name = workload_name_for_job(long_name, "u");
  EXPECT_EQ(name.size(), 253u);
  EXPECT_EQ(name.substr(0, 4), "job-");
  EXPECT_EQ(name.substr(name.size() - 6), "-fd46f");
  // The prefix holds 247 characters: "job-" + 243 of the name.
  EXPECT_EQ(name.substr(4, 243), std::string(243, 'a'));
}

TEST(WorkloadName, KueueLongVector) {
  const std::string owner =
      "marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-social-media-"
      "engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-senior-architect-"
      "validation-checked-approved-by-legal-and-ops-dept";
  EXPECT_EQ(workload_name_for_job(owner, "uid"),
            "job-marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-"
            "social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-"
            "senior-architect-validation-checked-approved-by-l-218b8");
  EXPECT_EQ(workload_name_for_job(owner, "uid", kShortMaxWorkloadNameLength),
            "job-marketing-campaign-autumn-2024-region-north-america-d-218b8");
}

TEST(WorkloadName, ExactlyAtTheLimitIsNotTruncated) {
  std::string fits(243, 'b');  // "job-" + 243 = 247 = the prefix limit
  std::string name = workload_name_for_job(fits, "x");
  EXPECT_EQ(name.size(), 253u);
  EXPECT_EQ(name.substr(name.size() - 8), "bb-9bc5f");
  std::string over(244, 'b');  // one more: the last character is cut, the hash differs
  std::string cut = workload_name_for_job(over, "x");
  EXPECT_EQ(cut.size(), 253u);
  EXPECT_EQ(cut.substr(cut.size() - 8), "bb-40619");
}

TEST(WorkloadName, ShortNamesFitALabelValue) {
  std::string name = workload_name_for_job(std::string(300, 'a'), "u", kShortMaxWorkloadNameLength);
  EXPECT_EQ(name.size(), 63u);
  EXPECT_EQ(name, "job-" + std::string(53, 'a') + "-fd46f");
}

TEST(WorkloadName, ExtraChangesOnlyTheHash) {
  EXPECT_EQ(workload_name_for_owner({"j", "u", "batch", "Job"}, kLongMaxWorkloadNameLength, "7"), "job-j-e43d0");
}

TEST(WorkloadName, KindIsLowercasedAndGroupHashed) {
  EXPECT_EQ(workload_name_for_owner({"js", "u", "jobset.x-k8s.io", "JobSet"}), "jobset-js-3cafe");
}

TEST(WorkloadName, Deterministic) {
  EXPECT_EQ(workload_name_for_job("a", "b"), workload_name_for_job("a", "b"));
  EXPECT_NE(workload_name_for_job("a", "b"), workload_name_for_job("a", "c"));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
