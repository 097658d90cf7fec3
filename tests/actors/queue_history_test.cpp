// A ClusterQueue's ring of samples: one per interval, an hour kept, always in order.

#include <gtest/gtest.h>

#include "actors/queue_history.hpp"

namespace kueuepp::actors {
namespace {

core::Time at(std::int64_t seconds) { return core::Time{std::chrono::seconds(seconds)}; }

QueueSample sample(std::int64_t seconds, std::int64_t pending) {
  QueueSample s;
  s.at = at(seconds);
  s.pending = pending;
  return s;
}

TEST(QueueHistory, KeepsTheLatestSampleOfEachInterval) {
  QueueHistory h(std::chrono::seconds(10), std::chrono::hours(1));
  h.record(sample(100, 1));
  h.record(sample(105, 2));
  h.record(sample(110, 3));
  ASSERT_EQ(h.samples().size(), 2u);
  EXPECT_EQ(h.samples()[0].pending, 2);
  EXPECT_EQ(h.samples()[1].pending, 3);
}

TEST(QueueHistory, KeepsOneHourAndIsBounded) {
  QueueHistory h(std::chrono::seconds(10), std::chrono::hours(1));
  for (int i = 0; i < 1000; ++i) h.record(sample(i * 10, i));
  EXPECT_LE(h.samples().size(), h.capacity());
  EXPECT_EQ(h.capacity(), 361u);
  EXPECT_GE(h.samples().front().at, h.samples().back().at - std::chrono::hours(1));
  EXPECT_EQ(h.samples().back().pending, 999);
}

TEST(QueueHistory, AClockThatGoesBackDoesNotUnorderTheRing) {
  QueueHistory h(std::chrono::seconds(10), std::chrono::hours(1));
  h.record(sample(200, 1));
  h.record(sample(150, 2));
  ASSERT_EQ(h.samples().size(), 1u);
  EXPECT_EQ(h.samples()[0].pending, 2);
  EXPECT_EQ(h.samples()[0].at, at(200));
}

}  // namespace
}  // namespace kueuepp::actors
