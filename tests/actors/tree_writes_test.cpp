// The write path of a cohort tree on its own: a real engine, decisions turned into
// planned writes, and outcomes fed back by hand (no actors, no writer).

#include "actors/tree_writes.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/engine/engine.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/objects/decoders.hpp"

namespace kueuepp::actors {
namespace {

using messages::ObjectPtr;
using messages::WriteIntent;
using messages::WriteOutcome;

json::value parse(const std::string& text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v ? *v : json::value(json::object{});
}

core::Time t0() { return *core::parse_rfc3339("2026-01-01T00:00:00Z"); }

ObjectPtr workload(const std::string& name, int rv, int priority = 0, const std::string& status = "") {
  return std::make_shared<const kube::client::Object>(parse(
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":")" + name +
      R"(","namespace":"ns","uid":"uid-)" + name + R"(","resourceVersion":")" + std::to_string(rv) +
      R"(","creationTimestamp":"2025-12-31T23:59:50Z","generation":1},)" +
      (status.empty() ? std::string() : R"("status":)" + status + ",") + R"("spec":{"priority":)" +
      std::to_string(priority) +
      R"(,"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}}]}})"));
}

const std::string kAdmitted =
    R"({"admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","flavors":{"cpu":"default"},"resourceUsage":{"cpu":"1"},"count":1}]},)"
    R"("conditions":[{"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"},)"
    R"({"type":"Admitted","status":"True","reason":"Admitted","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}]})";

WriteOutcome ok_at(int rv) {
  WriteOutcome o;
  o.ok = true;
  o.http_status = 200;
  o.object = std::make_shared<const kube::client::Object>(
      parse(R"({"metadata":{"resourceVersion":")" + std::to_string(rv) + R"("}})"));
  return o;
}

WriteOutcome refused(int status, std::string reason) {
  WriteOutcome o;
  o.http_status = status;
  o.reason = std::move(reason);
  return o;
}

WriteOutcome lost() {
  WriteOutcome o;
  o.maybe_landed = true;
  o.message = "connection reset";
  return o;
}

WriteOutcome read_of(ObjectPtr object) {
  WriteOutcome o;
  o.ok = true;
  o.http_status = 200;
  o.object = std::move(object);
  return o;
}

/// An admission of ns/`name` to "cq" (1 cpu of "default"), decided at t0: one the engine
/// did not make, for the cases a round cannot set up on a 1-cpu queue. `after_preemptions`
/// as the engine marks one that fits only in the quota of a victim claimed in its cycle.
core::AdmissionDecision admission_decision(const std::string& name, bool after_preemptions) {
  core::AdmissionDecision a;
  a.workload = "ns/" + name;
  a.admission.cluster_queue = "cq";
  core::PodSetAssignment ps;
  ps.name = "main";
  ps.flavors["cpu"] = "default";
  ps.resource_usage["cpu"] = core::Quantity::from_milli(1000);
  ps.count = 1;
  a.admission.pod_set_assignments.push_back(ps);
  a.after_preemptions = after_preemptions;
  a.at = t0();
  return a;
}

/// A preemption of ns/`victim` for ns/`preemptor`, decided at t0.
core::EvictionDecision preemption_of(const std::string& victim, const std::string& preemptor) {
  core::EvictionDecision ev;
  ev.workload = "ns/" + victim;
  ev.cluster_queue = "cq";
  ev.reason = "Preempted";
  ev.preemptor = "ns/" + preemptor;
  ev.at = t0();
  return ev;
}

class TreeWritesTest : public ::testing::Test {
 protected:
  TreeWritesTest() : writes_(engine_, "test", std::chrono::milliseconds(0)) {
    engine_.apply(*kube::decode_resource_flavor(
        parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":"default"}})")));
    engine_.apply(*kube::decode_cluster_queue(parse(
        R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq","generation":1},)"
        R"("spec":{"namespaceSelector":{},"preemption":{"withinClusterQueue":"LowerPriority"},)"
        R"("resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":"1"}]}]}]}})")));
    engine_.apply(*kube::decode_local_queue(parse(
        R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":"lq","namespace":"ns"},"spec":{"clusterQueue":"cq"}})")));
    engine_.apply(*kube::decode_namespace(parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns"}})")));
  }

  /// The workload's version, as the tree applies a watch event.
  WriteEffects see(const ObjectPtr& wl) {
    auto model = kube::decode_workload(wl->json());
    EXPECT_TRUE(model.has_value());
    (void)engine_.apply(*model);
    CachedWorkload c;
    c.packed = messages::pack(*wl);
    c.resource_version = std::string(wl->resource_version());
    c.finished = model->condition_true("Finished");
    c.holds_quota = !c.finished && model->admission.has_value();
    return writes_.on_version(wl->key(), std::move(c), t0());
  }

  /// "victim" (holding the queue's 1 cpu) preempted for "preemptor" in a round, and an
  /// admission of "other" added to that round's decisions (a workload fitting in the
  /// victim's quota beside the preemptor, or, unless `after_preemptions`, beside the victim:
  /// neither of which a 1-cpu queue can make the engine decide).
  core::Decisions preemption_round(bool after_preemptions = true) {
    see(workload("victim", 10, 0, kAdmitted));
    see(workload("preemptor", 11, 100));
    see(workload("other", 12, 0));
    engine_.run_cycle(t0());
    core::Decisions d = engine_.take_decisions();
    d.admissions.push_back(admission_decision("other", after_preemptions));
    return d;
  }

  WriteEffects round() {
    engine_.run_cycle(t0());
    return writes_.plan(engine_.take_decisions(), t0());
  }

  static const PlannedWrite* find(const WriteEffects& fx, WriteIntent intent) {
    for (const auto& w : fx.writes) {
      if (w.request.intent == intent) return &w;
    }
    return nullptr;
  }

  core::Engine engine_;
  TreeWrites writes_;
};

TEST_F(TreeWritesTest, AnAdmissionIsPlannedOnTheVersionItWasDecidedOn) {
  see(workload("a", 10));
  WriteEffects fx = round();
  const PlannedWrite* w = find(fx, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->request.name, "a");
  EXPECT_EQ(w->request.precondition_rv, "10");
  EXPECT_EQ(writes_.admissions_in_flight(), 1u);
  WriteEffects done = writes_.on_outcome(w->ticket, ok_at(11), t0());
  ASSERT_EQ(done.landed.size(), 1u) << "counted once it landed";
  EXPECT_FALSE(done.dirty);
  EXPECT_EQ(writes_.admissions_in_flight(), 0u);
}

TEST_F(TreeWritesTest, ARefusedAdmissionIsForgottenAndItsQuotaFreed) {
  see(workload("a", 10));
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  const std::uint64_t ticket = w->ticket;
  WriteEffects done = writes_.on_outcome(ticket, refused(422, "Invalid"), t0());
  EXPECT_TRUE(done.dirty) << "a round may use the quota again";
  EXPECT_EQ(writes_.rolled_back(), 1u);
  EXPECT_FALSE(engine_.workload("ns/a", false)->reserved);
}

TEST_F(TreeWritesTest, ALostAdmissionAnswerHoldsTheQuotaAndReadsTheWorkloadBack) {
  ObjectPtr a = workload("a", 10);
  see(a);
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  WriteEffects after_loss = writes_.on_outcome(w->ticket, lost(), t0());
  EXPECT_FALSE(after_loss.dirty);
  EXPECT_TRUE(engine_.workload("ns/a", false)->reserved) << "its quota stays held";
  const PlannedWrite* read = find(after_loss, WriteIntent::Read);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->request.verb, messages::WriteVerb::Get);
  // Another workload arriving meanwhile is not admitted: the quota is taken.
  see(workload("b", 12));
  WriteEffects next = round();
  EXPECT_EQ(find(next, WriteIntent::Admission), nullptr);
  // The read shows the admission: it landed.
  WriteEffects settled = writes_.on_outcome(read->ticket, read_of(workload("a", 11, 0, kAdmitted)), t0());
  EXPECT_EQ(settled.landed.size(), 1u);
  EXPECT_FALSE(settled.dirty);
  EXPECT_EQ(writes_.unsettled(), 0u);
  EXPECT_TRUE(engine_.workload("ns/a", false)->reserved);
}

// A read showing the version the lost write was conditional on does not prove it will
// not land (the read may overtake it): the admission is written again on that version,
// the quota held, and that write's answer settles it.
TEST_F(TreeWritesTest, AReadBackShowingTheOldVersionWritesTheAdmissionAgainOnIt) {
  ObjectPtr a = workload("a", 10);
  see(a);
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  WriteEffects after_loss = writes_.on_outcome(w->ticket, lost(), t0());
  const PlannedWrite* read = find(after_loss, WriteIntent::Read);
  ASSERT_NE(read, nullptr);
  WriteEffects fenced = writes_.on_outcome(read->ticket, read_of(a), t0());
  EXPECT_FALSE(fenced.dirty);
  EXPECT_TRUE(fenced.landed.empty());
  EXPECT_TRUE(engine_.workload("ns/a", false)->reserved) << "its quota stays held";
  const PlannedWrite* fence = find(fenced, WriteIntent::Admission);
  ASSERT_NE(fence, nullptr);
  EXPECT_EQ(fence->request.precondition_rv, "10");
  // It lands: the admission is counted.
  WriteEffects landed = writes_.on_outcome(fence->ticket, ok_at(12), t0());
  EXPECT_EQ(landed.landed.size(), 1u);
  EXPECT_TRUE(engine_.workload("ns/a", false)->reserved);
}

TEST_F(TreeWritesTest, AFenceRefusedIsReadAndAnAdmissionOvertakenIsRolledBack) {
  ObjectPtr a = workload("a", 10);
  see(a);
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  WriteEffects after_loss = writes_.on_outcome(w->ticket, lost(), t0());
  const PlannedWrite* read = find(after_loss, WriteIntent::Read);
  ASSERT_NE(read, nullptr);
  WriteEffects fenced = writes_.on_outcome(read->ticket, read_of(a), t0());
  const PlannedWrite* fence = find(fenced, WriteIntent::Admission);
  ASSERT_NE(fence, nullptr);
  // Refused: the object moved on; a read says whether by the lost admission.
  WriteEffects refused_fence = writes_.on_outcome(fence->ticket, refused(409, "Conflict"), t0());
  EXPECT_TRUE(engine_.workload("ns/a", false)->reserved);
  const PlannedWrite* again = find(refused_fence, WriteIntent::Read);
  ASSERT_NE(again, nullptr);
  // Someone else's version, without the admission: it can no longer land.
  WriteEffects settled = writes_.on_outcome(again->ticket, read_of(workload("a", 13)), t0());
  EXPECT_TRUE(settled.dirty);
  EXPECT_TRUE(settled.landed.empty());
  EXPECT_FALSE(engine_.workload("ns/a", false)->reserved);
}

TEST_F(TreeWritesTest, AFailedReadIsTriedAgainAfterAPause) {
  see(workload("a", 10));
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  WriteEffects after_loss = writes_.on_outcome(w->ticket, lost(), t0());
  const PlannedWrite* read = find(after_loss, WriteIntent::Read);
  ASSERT_NE(read, nullptr);
  WriteEffects failed = writes_.on_outcome(read->ticket, refused(503, "ServiceUnavailable"), t0());
  ASSERT_EQ(failed.delayed_reads.size(), 1u);
  EXPECT_EQ(failed.delayed_reads[0].after, std::chrono::milliseconds(200));
  const DelayedRead due = failed.delayed_reads[0];
  WriteEffects again = writes_.read_due(due.key, due.what);
  EXPECT_NE(find(again, WriteIntent::Read), nullptr);
  EXPECT_TRUE(engine_.workload("ns/a", false)->reserved);
}

TEST_F(TreeWritesTest, AnEvictionRefusedForAStaleVersionIsWrittenOnTheNewerOne) {
  see(workload("low", 10, 1, kAdmitted));
  see(workload("high", 11, 100));
  WriteEffects fx = round();
  const PlannedWrite* ev = find(fx, WriteIntent::Eviction);
  ASSERT_NE(ev, nullptr);
  EXPECT_EQ(ev->request.precondition_rv, "10");
  EXPECT_TRUE(writes_.on_outcome(ev->ticket, refused(409, "Conflict"), t0()).writes.empty())
      << "nothing to write it on until the newer version arrives";
  WriteEffects on_newer = see(workload("low", 12, 1, kAdmitted));
  const PlannedWrite* again = find(on_newer, WriteIntent::Eviction);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->request.precondition_rv, "12");
}

// A 409 that no newer version follows (a proxy's, a webhook's): the workload is read after
// a pause, and found unchanged it competes again instead of waiting for good.
TEST_F(TreeWritesTest, AnAdmissionRefusedWithoutANewerVersionCompetesAgainAfterARead) {
  ObjectPtr a = workload("a", 10);
  see(a);
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  WriteEffects refusal = writes_.on_outcome(w->ticket, refused(409, "Conflict"), t0());
  EXPECT_FALSE(engine_.workload("ns/a", false)->reserved);
  EXPECT_EQ(find(round(), WriteIntent::Admission), nullptr) << "held until a newer version";
  ASSERT_EQ(refusal.delayed_reads.size(), 1u) << "no newer version may come: a read is due";
  const DelayedRead due = refusal.delayed_reads[0];
  EXPECT_EQ(due.after, std::chrono::milliseconds(1000));
  WriteEffects reading = writes_.read_due(due.key, due.what);
  const PlannedWrite* read = find(reading, WriteIntent::Read);
  ASSERT_NE(read, nullptr);
  WriteEffects unchanged = writes_.on_outcome(read->ticket, read_of(a), t0());
  EXPECT_TRUE(unchanged.dirty);
  WriteEffects next = round();
  const PlannedWrite* again = find(next, WriteIntent::Admission);
  ASSERT_NE(again, nullptr) << "the read showed no newer version: it competes again";
  EXPECT_EQ(again->request.precondition_rv, "10");
}

TEST_F(TreeWritesTest, AConflictFollowedByTheNewerVersionReadsNothing) {
  see(workload("a", 10));
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  WriteEffects refusal = writes_.on_outcome(w->ticket, refused(409, "Conflict"), t0());
  ASSERT_EQ(refusal.delayed_reads.size(), 1u);
  see(workload("a", 11));
  WriteEffects next = round();
  const PlannedWrite* again = find(next, WriteIntent::Admission);
  ASSERT_NE(again, nullptr) << "the newer version released it";
  EXPECT_EQ(again->request.precondition_rv, "11");
  const DelayedRead due = refusal.delayed_reads[0];
  EXPECT_TRUE(writes_.read_due(due.key, due.what).writes.empty()) << "the newer version came: no read";
}

TEST_F(TreeWritesTest, AConflictWhoseReadShowsANewerVersionWaitsForIt) {
  see(workload("a", 10));
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  WriteEffects refusal = writes_.on_outcome(w->ticket, refused(409, "Conflict"), t0());
  ASSERT_EQ(refusal.delayed_reads.size(), 1u);
  const DelayedRead due = refusal.delayed_reads[0];
  WriteEffects reading = writes_.read_due(due.key, due.what);
  const PlannedWrite* read = find(reading, WriteIntent::Read);
  ASSERT_NE(read, nullptr);
  WriteEffects newer = writes_.on_outcome(read->ticket, read_of(workload("a", 12)), t0());
  EXPECT_TRUE(newer.empty());
  EXPECT_EQ(find(round(), WriteIntent::Admission), nullptr) << "the watch brings the newer version";
}

TEST_F(TreeWritesTest, AnEvictionRefusedWithoutANewerVersionIsWrittenAgainAfterARead) {
  ObjectPtr low = workload("low", 10, 1, kAdmitted);
  see(low);
  see(workload("high", 11, 100));
  WriteEffects planned = round();
  const PlannedWrite* ev = find(planned, WriteIntent::Eviction);
  ASSERT_NE(ev, nullptr);
  WriteEffects refusal = writes_.on_outcome(ev->ticket, refused(409, "Conflict"), t0());
  ASSERT_EQ(refusal.delayed_reads.size(), 1u);
  const DelayedRead due = refusal.delayed_reads[0];
  WriteEffects reading = writes_.read_due(due.key, due.what);
  const PlannedWrite* read = find(reading, WriteIntent::Read);
  ASSERT_NE(read, nullptr);
  WriteEffects unchanged = writes_.on_outcome(read->ticket, read_of(low), t0());
  const PlannedWrite* again = find(unchanged, WriteIntent::Eviction);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->request.precondition_rv, "10");
}

TEST_F(TreeWritesTest, AnExplanationIsNotWrittenBesideAnAdmissionBeingWritten) {
  see(workload("a", 10));
  WriteEffects fx = round();
  ASSERT_NE(find(fx, WriteIntent::Admission), nullptr);
  core::Decisions words;
  words.pending.push_back(core::PendingDecision{"ns/a", "Pending", "waits", "", ""});
  WriteEffects explained = writes_.plan(std::move(words), t0());
  EXPECT_EQ(find(explained, WriteIntent::PendingExplanation), nullptr);
}

TEST_F(TreeWritesTest, AForgottenWorkloadsOutcomesChangeNothing) {
  see(workload("a", 10));
  WriteEffects planned = round();
  const PlannedWrite* w = find(planned, WriteIntent::Admission);
  ASSERT_NE(w, nullptr);
  const std::uint64_t ticket = w->ticket;
  engine_.remove_workload("ns/a");
  writes_.forget("ns/a");
  WriteEffects done = writes_.on_outcome(ticket, refused(409, "Conflict"), t0());
  EXPECT_TRUE(done.empty());
  EXPECT_EQ(writes_.rolled_back(), 0u);
}


// The engine counts a victim's quota free for the entries of a cycle after its preemptor
// (Kueue's fit after preemptions). An admission that landed before the victim's Evicted
// condition would show the cohort over its quota with no victim to explain it, and for
// good if the eviction never landed: it is written once the eviction is known to have
// landed. Found by FaultE2e.AllAtOnce (a cohort at 13 of 12 CPU while an eviction's
// write was still being retried).
TEST_F(TreeWritesTest, AnAdmissionDecidedWhileAPreemptionIsUnlandedWaitsForTheEviction) {
  core::Decisions d = preemption_round();
  ASSERT_EQ(d.evictions.size(), 1u);
  ASSERT_EQ(d.evictions[0].reason, "Preempted");

  WriteEffects fx = writes_.plan(std::move(d), t0());
  const PlannedWrite* eviction = find(fx, WriteIntent::Eviction);
  ASSERT_NE(eviction, nullptr);
  EXPECT_EQ(find(fx, WriteIntent::Admission), nullptr) << "written before the victim's eviction landed";
  EXPECT_EQ(writes_.admissions_held(), 1u);

  WriteEffects landed = writes_.on_outcome(eviction->ticket, ok_at(13), t0());
  const PlannedWrite* admission = find(landed, WriteIntent::Admission);
  ASSERT_NE(admission, nullptr) << "not written once the eviction landed";
  EXPECT_EQ(admission->request.name, "other");
  EXPECT_EQ(writes_.admissions_held(), 0u);
}

// Only an admission that fits in a victim's quota waits for its eviction: one that fits
// with the victims' quota still counted cannot show it taken twice, and is written at once.
TEST_F(TreeWritesTest, AnAdmissionThatFitsBesideTheVictimsIsWrittenWhileAPreemptionIsUnlanded) {
  WriteEffects fx = writes_.plan(preemption_round(false), t0());
  ASSERT_NE(find(fx, WriteIntent::Eviction), nullptr);
  const PlannedWrite* admission = find(fx, WriteIntent::Admission);
  ASSERT_NE(admission, nullptr) << "held behind an eviction it does not depend on";
  EXPECT_EQ(admission->request.name, "other");
  EXPECT_EQ(writes_.admissions_held(), 0u);
}

// A held admission's workload chosen as a victim in a later round: its eviction could not
// be written before its admission, which waits for the preemptions to land, and neither
// would ever be. The admission is rolled back instead and nothing is evicted.
TEST_F(TreeWritesTest, AHeldAdmissionWhoseWorkloadIsPreemptedIsRolledBack) {
  core::Decisions d = preemption_round();
  ASSERT_EQ(d.evictions.size(), 1u);
  WriteEffects fx = writes_.plan(std::move(d), t0());
  const PlannedWrite* eviction = find(fx, WriteIntent::Eviction);
  ASSERT_NE(eviction, nullptr);
  ASSERT_EQ(writes_.admissions_held(), 1u);

  core::Decisions later;
  later.evictions.push_back(preemption_of("other", "preemptor"));
  WriteEffects again = writes_.plan(std::move(later), t0());
  EXPECT_EQ(find(again, WriteIntent::Eviction), nullptr) << "an eviction of an admission never written";
  EXPECT_EQ(writes_.admissions_held(), 0u);
  EXPECT_EQ(writes_.admissions_in_flight(), 0u);

  WriteEffects landed = writes_.on_outcome(eviction->ticket, ok_at(13), t0());
  EXPECT_EQ(find(landed, WriteIntent::Admission), nullptr) << "the rolled-back admission was written";
}


// A victim whose own admission is still being written: a version of it without the
// admission (an explanation that landed before) says nothing about its eviction, and the
// admissions that rely on its quota keep waiting.
TEST_F(TreeWritesTest, AVictimsVersionWithoutItsAdmissionDoesNotReleaseTheHeldAdmissions) {
  see(workload("victim", 10, 0));
  WriteEffects first = round();
  ASSERT_NE(find(first, WriteIntent::Admission), nullptr);  // not answered yet
  see(workload("preemptor", 11, 100));
  see(workload("other", 12, 0));
  engine_.run_cycle(t0());
  core::Decisions d = engine_.take_decisions();
  ASSERT_EQ(d.evictions.size(), 1u);
  ASSERT_EQ(d.evictions[0].workload, "ns/victim");
  d.admissions.push_back(admission_decision("other", true));
  WriteEffects fx = writes_.plan(std::move(d), t0());
  EXPECT_EQ(find(fx, WriteIntent::Admission), nullptr);
  ASSERT_EQ(writes_.admissions_held(), 1u);

  WriteEffects newer = see(workload("victim", 13, 0));
  EXPECT_EQ(find(newer, WriteIntent::Admission), nullptr) << "released before the victim's eviction landed";
  EXPECT_EQ(writes_.admissions_held(), 1u);
}


// Admitted and then preempted in the same round (a later cycle of it): the admission is
// held for its own eviction, which could only be written after it. Neither is written;
// the admission is rolled back.
TEST_F(TreeWritesTest, AWorkloadAdmittedAndPreemptedInOneRoundIsRolledBack) {
  see(workload("quick", 10, 0));
  core::Decisions d;
  d.admissions.push_back(admission_decision("quick", true));
  d.evictions.push_back(preemption_of("quick", "other"));
  WriteEffects fx = writes_.plan(std::move(d), t0());
  EXPECT_EQ(find(fx, WriteIntent::Admission), nullptr);
  EXPECT_EQ(find(fx, WriteIntent::Eviction), nullptr);
  EXPECT_EQ(writes_.admissions_held(), 0u);
  EXPECT_EQ(writes_.admissions_in_flight(), 0u);
}

}  // namespace
}  // namespace kueuepp::actors
