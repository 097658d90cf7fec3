// Event spam filtering and aggregation (client-go's EventCorrelator semantics).

#include "actors/event_correlator.hpp"

#include <gtest/gtest.h>

namespace kueuepp::actors {
namespace {

using messages::ObjectKind;
using messages::RecordEvent;

core::Time at(std::int64_t seconds) { return core::time_from_seconds(1767225600 + seconds); }

RecordEvent event(std::string name, std::string reason, std::string message = "m") {
  std::string uid = "uid-" + name;
  return RecordEvent{ObjectKind::Job, "ns", std::move(name), std::move(uid), false, std::move(reason),
                     std::move(message)};
}

TEST(EventCorrelator, RepeatsBumpTheSameEvent) {
  EventCorrelator c;
  auto first = c.observe(event("job", "Started"), at(0));
  ASSERT_EQ(first.kind, EventAction::Kind::Create);
  EXPECT_EQ(first.event_name.rfind("job.", 0), 0u);
  auto second = c.observe(event("job", "Started"), at(10));
  ASSERT_EQ(second.kind, EventAction::Kind::Bump);
  EXPECT_EQ(second.event_name, first.event_name);
  EXPECT_EQ(second.count, 2);
  EXPECT_EQ(second.first, at(0));
  EXPECT_EQ(second.last, at(10));
}

TEST(EventCorrelator, ADifferentMessageOrAnExpiredWindowCreatesAnother) {
  EventCorrelator c;
  auto a = c.observe(event("job", "Stopped", "one"), at(0));
  auto b = c.observe(event("job", "Stopped", "two"), at(1));
  EXPECT_EQ(b.kind, EventAction::Kind::Create);
  EXPECT_NE(a.event_name, b.event_name);
  auto later = c.observe(event("job", "Stopped", "one"), at(1000));
  EXPECT_EQ(later.kind, EventAction::Kind::Create);
}

TEST(EventCorrelator, SpamFilterLimitsOneObjectNotOthers) {
  EventCorrelatorOptions o;
  o.burst = 3;
  o.refill_interval = std::chrono::seconds(60);
  EventCorrelator c(o);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(c.observe(event("noisy", "R" + std::to_string(i)), at(0)).kind, EventAction::Kind::Drop);
  }
  EXPECT_EQ(c.observe(event("noisy", "R9"), at(0)).kind, EventAction::Kind::Drop);
  EXPECT_EQ(c.dropped(), 1u);
  // Another object has its own bucket.
  EXPECT_EQ(c.observe(event("quiet", "R0"), at(0)).kind, EventAction::Kind::Create);
  // One token comes back per refill interval.
  EXPECT_NE(c.observe(event("noisy", "R10"), at(61)).kind, EventAction::Kind::Drop);
  EXPECT_EQ(c.observe(event("noisy", "R11"), at(62)).kind, EventAction::Kind::Drop);
}

TEST(EventCorrelator, MemoryStaysBounded) {
  EventCorrelatorOptions o;
  o.max_tracked = 100;
  o.aggregate_window = std::chrono::seconds(10);
  o.burst = 1;
  o.refill_interval = std::chrono::seconds(1);
  EventCorrelator c(o);
  for (int i = 0; i < 10000; ++i) c.observe(event("job-" + std::to_string(i), "Started"), at(i));
  EXPECT_LE(c.tracked(), 2 * o.max_tracked + 2);
}

TEST(EventCorrelator, ABurstOnManyObjectsWithinTheWindowStaysBounded) {
  // 30,000 Events on 15,000 objects in 100 s (the perf baseline): nothing is old enough
  // to go by age, so the least recently used go.
  EventCorrelatorOptions o;
  o.max_tracked = 1000;
  EventCorrelator c(o);
  std::size_t most = 0;
  for (int i = 0; i < 30000; ++i) {
    c.observe(event("wl-" + std::to_string(i / 2), i % 2 == 0 ? "QuotaReserved" : "Admitted"),
              core::time_from_seconds(1'000'000) + std::chrono::milliseconds(i * 3));
    most = std::max(most, c.tracked());
  }
  EXPECT_LE(most, o.max_tracked + 1);
}

TEST(EventCorrelator, TheMostRecentlyUsedObjectsAreKept) {
  EventCorrelatorOptions o;
  o.max_tracked = 8;
  EventCorrelator c(o);
  // "hot" is used between every other object: it stays, so its repeat still aggregates.
  EXPECT_EQ(c.observe(event("hot", "R"), at(0)).kind, EventAction::Kind::Create);
  for (int i = 0; i < 20; ++i) {
    c.observe(event("cold-" + std::to_string(i), "R"), at(1));
    EXPECT_EQ(c.observe(event("hot", "R"), at(1)).kind, EventAction::Kind::Bump) << i;
  }
  // The first cold object was forgotten: its repeat is a new Event.
  EXPECT_EQ(c.observe(event("cold-0", "R"), at(2)).kind, EventAction::Kind::Create);
}

}  // namespace
}  // namespace kueuepp::actors
