#include "core/engine/pending_queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kueuepp::core {
namespace {

// Workload ids double as indexes into these uids, which must outlive the queue.
const std::vector<std::string> kUids = {"u0", "u1", "u2", "u3", "u4", "u5", "u6"};

PendingQueue::Item item(int wl, std::int64_t priority, std::int64_t seconds, std::uint64_t hash = 0) {
  PendingQueue::Item i;
  i.key.priority = priority;
  i.key.timestamp = time_from_seconds(seconds);
  i.key.uid = kUids[static_cast<std::size_t>(wl)];
  i.key.workload = wl;
  i.hash = hash;
  return i;
}

TEST(PendingQueue, PopsByPriorityThenTimestampThenUid) {
  PendingQueue q;
  q.push_or_update(item(0, 0, 30), true, true);
  q.push_or_update(item(1, 5, 40), true, true);
  q.push_or_update(item(2, 0, 10), true, true);
  q.push_or_update(item(3, 0, 10), true, true);
  EXPECT_EQ(q.pop(), 1);
  EXPECT_EQ(q.pop(), 2);
  EXPECT_EQ(q.pop(), 3);
  EXPECT_EQ(q.pop(), 0);
  EXPECT_EQ(q.pop(), std::nullopt);
  EXPECT_EQ(q.where(0), PendingQueue::Where::Inflight);
}

TEST(PendingQueue, BestEffortParksANoFitHeadUntilAFlush) {
  PendingQueue q;
  q.push_or_update(item(0, 0, 1), true, true);
  q.push_or_update(item(1, 0, 2), true, true);
  ASSERT_EQ(q.pop(), 0);
  EXPECT_FALSE(q.requeue(item(0, 0, 1), RequeueReason::NoFit, true, false));
  EXPECT_EQ(q.where(0), PendingQueue::Where::Inadmissible);
  EXPECT_EQ(q.pop(), 1);  // the next workload becomes head
  EXPECT_EQ(q.flush([](int) { return true; }), 1);
  EXPECT_EQ(q.where(0), PendingQueue::Where::Active);
  EXPECT_EQ(q.pop(), 0);
}

TEST(PendingQueue, StrictFifoPutsTheHeadBackAtOnce) {
  PendingQueue q(QueueingStrategy::StrictFIFO);
  q.push_or_update(item(0, 0, 1), true, true);
  q.push_or_update(item(1, 0, 2), true, true);
  ASSERT_EQ(q.pop(), 0);
  EXPECT_TRUE(q.requeue(item(0, 0, 1), RequeueReason::NoFit, true, false));
  EXPECT_EQ(q.pop(), 0);  // still the head: nothing behind it is tried
  // A namespace mismatch never comes back without a flush.
  EXPECT_FALSE(q.requeue(item(0, 0, 1), RequeueReason::NamespaceMismatch, true, false));
  EXPECT_EQ(q.pop(), 1);
}

TEST(PendingQueue, AFlushDuringTheCycleSendsTheHeadBackToTheActiveSet) {
  PendingQueue q;
  q.push_or_update(item(0, 0, 1), true, true);
  ASSERT_EQ(q.pop(), 0);
  q.flush([](int) { return true; });  // something was released while it was in flight
  EXPECT_TRUE(q.requeue(item(0, 0, 1), RequeueReason::NoFit, true, false));
  EXPECT_EQ(q.where(0), PendingQueue::Where::Active);
}

TEST(PendingQueue, UntriedFlavorsKeepTheWorkloadActive) {
  PendingQueue q;
  q.push_or_update(item(0, 0, 1), true, true);
  ASSERT_EQ(q.pop(), 0);
  EXPECT_TRUE(q.requeue(item(0, 0, 1), RequeueReason::NoFit, true, /*pending_flavors=*/true));
}

TEST(PendingQueue, ThePreemptorIsStickyUnderBestEffort) {
  PendingQueue q;
  q.push_or_update(item(0, 9, 1), true, true);
  q.push_or_update(item(1, 0, 2), true, true);
  ASSERT_EQ(q.pop(), 0);
  q.push_or_update(item(2, 9, 0), true, true);  // a newer, higher-ranked workload arrives
  ASSERT_EQ(q.pop(), 2);
  EXPECT_TRUE(q.requeue(item(2, 9, 0), RequeueReason::FailedAfterNomination, true, false));
  EXPECT_TRUE(q.requeue(item(0, 9, 1), RequeueReason::PendingPreemption, true, false));
  EXPECT_TRUE(q.is_preemptor(0));
  EXPECT_EQ(q.pop(), 0);  // sticky: ahead of 2 despite the order
  q.remove(0);
  EXPECT_FALSE(q.is_preemptor(0));
  EXPECT_EQ(q.pop(), 2);
}

TEST(PendingQueue, EquivalentWorkloadsAreParkedTogether) {
  PendingQueue q;
  q.push_or_update(item(0, 0, 1, 42), true, true);
  q.push_or_update(item(1, 0, 2, 42), true, true);
  q.push_or_update(item(2, 0, 3, 7), true, true);
  ASSERT_EQ(q.pop(), 0);
  q.requeue(item(0, 0, 1, 42), RequeueReason::NoFit, true, false);
  EXPECT_EQ(q.where(1), PendingQueue::Where::Inadmissible);
  EXPECT_EQ(q.pop(), 2);
  // A new arrival of a parked class goes straight to the inadmissible set...
  q.push_or_update(item(3, 0, 4, 42), true, true);
  EXPECT_EQ(q.where(3), PendingQueue::Where::Inadmissible);
  // ...until a flush forgets the class.
  q.flush([](int) { return true; });
  q.push_or_update(item(4, 0, 5, 42), true, true);
  EXPECT_EQ(q.where(4), PendingQueue::Where::Active);
}

TEST(PendingQueue, BackoffHoldsANewWorkloadAndFlushRespectsEligibility) {
  PendingQueue q;
  q.push_or_update(item(0, 0, 1), true, /*backoff_expired=*/false);
  EXPECT_EQ(q.where(0), PendingQueue::Where::Inadmissible);
  EXPECT_EQ(q.flush([](int) { return false; }), 0);
  EXPECT_EQ(q.where(0), PendingQueue::Where::Inadmissible);
  EXPECT_EQ(q.flush([](int) { return true; }), 1);
}

TEST(PendingQueue, UnchangedParkedWorkloadStaysParked) {
  PendingQueue q;
  q.push_or_update(item(0, 0, 1), true, true);
  ASSERT_EQ(q.pop(), 0);
  q.requeue(item(0, 0, 1), RequeueReason::NoFit, true, false);
  q.push_or_update(item(0, 0, 1), /*may_have_become_admissible=*/false, true);
  EXPECT_EQ(q.where(0), PendingQueue::Where::Inadmissible);
  q.push_or_update(item(0, 3, 1), /*may_have_become_admissible=*/true, true);
  EXPECT_EQ(q.where(0), PendingQueue::Where::Active);
}

TEST(PendingQueue, OrderedListsEverythingWithTheStickyFirst) {
  PendingQueue q;
  q.push_or_update(item(0, 1, 1), true, true);
  q.push_or_update(item(1, 2, 1), true, true);
  q.push_or_update(item(2, 0, 1), true, true);
  ASSERT_EQ(q.pop(), 1);
  q.requeue(item(1, 2, 1), RequeueReason::NoFit, true, false);
  EXPECT_EQ(q.ordered(), (std::vector<int>{1, 0, 2}));
  EXPECT_EQ(q.size(), 3u);
}

}  // namespace
}  // namespace kueuepp::core
