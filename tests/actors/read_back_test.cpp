// What a read of a Workload says about a status write that did not settle.

#include "actors/read_back.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kueuepp::actors {
namespace {

kube::client::Object workload(const std::string& rv, const std::string& status = "") {
  auto parsed = json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"ns","resourceVersion":")" +
                            rv + R"("}})");
  EXPECT_TRUE(parsed.has_value());
  kube::client::Object o(*parsed);
  if (!status.empty()) {
    auto st = json::parse(status);
    EXPECT_TRUE(st.has_value());
    o.json().as_object()["status"] = *st;
  }
  return o;
}

const std::string kReservedInCq =
    R"({"admission":{"clusterQueue":"cq","podSetAssignments":[]},"conditions":[{"type":"QuotaReserved","status":"True"}]})";

core::AdmissionDecision admission_to(const std::string& cq) {
  core::AdmissionDecision a;
  a.workload = "ns/w";
  a.admission.cluster_queue = cq;
  return a;
}

TEST(ReadBack, AnAdmissionLandedWhenTheObjectHoldsQuotaInItsQueue) {
  EXPECT_EQ(judge_admission(workload("12", kReservedInCq), admission_to("cq"), "10"), ReadVerdict::Landed);
}

TEST(ReadBack, AnAdmissionDidNotLandWhileTheObjectIsTheVersionItWasWrittenOn) {
  EXPECT_EQ(judge_admission(workload("10"), admission_to("cq"), "10"), ReadVerdict::NotLanded);
}

TEST(ReadBack, AnAdmissionIsOvertakenWhenTheObjectMovedOnWithoutIt) {
  EXPECT_EQ(judge_admission(workload("11"), admission_to("cq"), "10"), ReadVerdict::Overtaken);
  // Reserved, but in another queue: not this decision.
  EXPECT_EQ(judge_admission(workload("11", kReservedInCq), admission_to("other"), "10"), ReadVerdict::Overtaken);
  // An admission without QuotaReserved=True holds nothing.
  EXPECT_EQ(judge_admission(workload("11", R"({"admission":{"clusterQueue":"cq"},"conditions":[]})"),
                            admission_to("cq"), "10"),
            ReadVerdict::Overtaken);
}

TEST(ReadBack, AnEvictionLandedWhenEvictedOrMootWhenNoQuotaIsHeld) {
  const std::string evicted =
      R"({"admission":{"clusterQueue":"cq"},"conditions":[{"type":"QuotaReserved","status":"True"},{"type":"Evicted","status":"True"}]})";
  EXPECT_EQ(judge_eviction(workload("12", evicted), "10"), ReadVerdict::Landed);
  EXPECT_EQ(judge_eviction(workload("12"), "10"), ReadVerdict::Landed);
  EXPECT_EQ(judge_eviction(workload("10", kReservedInCq), "10"), ReadVerdict::NotLanded);
  EXPECT_EQ(judge_eviction(workload("11", kReservedInCq), "10"), ReadVerdict::Overtaken);
}

TEST(ReadBack, ByVersionOnly) {
  EXPECT_EQ(judge_by_version(workload("10", kReservedInCq), "10"), ReadVerdict::NotLanded);
  EXPECT_EQ(judge_by_version(workload("11"), "10"), ReadVerdict::Overtaken);
}

TEST(ReadBack, ReadsAreRetriedWithAGrowingBoundedPause) {
  EXPECT_EQ(read_back_delay(0).count(), 0);
  EXPECT_EQ(read_back_delay(1).count(), 200);
  EXPECT_EQ(read_back_delay(2).count(), 400);
  EXPECT_EQ(read_back_delay(6).count(), 6400);
  EXPECT_EQ(read_back_delay(7).count(), 10000);
  EXPECT_EQ(read_back_delay(1000).count(), 10000);
}

}  // namespace
}  // namespace kueuepp::actors
