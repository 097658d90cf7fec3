// How often a workload's pending explanation is rewritten (ExplanationPacer).

#include "actors/explanation_pacer.hpp"

#include <gtest/gtest.h>

namespace kueuepp::actors {
namespace {

using std::chrono::milliseconds;

core::Time at_ms(std::int64_t ms) { return core::time_from_seconds(1767225600) + milliseconds(ms); }

TEST(ExplanationPacer, FirstExplanationGoesOutAtOnce) {
  ExplanationPacer p(milliseconds(2000));
  EXPECT_TRUE(p.may_write("ns/a", at_ms(0)));
  EXPECT_EQ(p.deferred(), 0u);
  EXPECT_FALSE(p.next_due().has_value());
}

TEST(ExplanationPacer, ChangeWithinTheIntervalIsDeferredToItsEnd) {
  ExplanationPacer p(milliseconds(2000));
  ASSERT_TRUE(p.may_write("ns/a", at_ms(0)));
  p.wrote("ns/a", at_ms(0));
  EXPECT_FALSE(p.may_write("ns/a", at_ms(500)));
  EXPECT_FALSE(p.may_write("ns/a", at_ms(900)));  // still one deferral
  EXPECT_EQ(p.deferred(), 1u);
  ASSERT_TRUE(p.next_due().has_value());
  EXPECT_EQ(*p.next_due(), at_ms(2000));
  EXPECT_TRUE(p.take_due(at_ms(1999)).empty());
  EXPECT_EQ(p.take_due(at_ms(2000)), std::vector<std::string>{"ns/a"});
  EXPECT_EQ(p.deferred(), 0u);
  // Once due, the write is allowed.
  EXPECT_TRUE(p.may_write("ns/a", at_ms(2000)));
}

TEST(ExplanationPacer, OtherWorkloadsAreNotHeldBack) {
  ExplanationPacer p(milliseconds(2000));
  p.wrote("ns/a", at_ms(0));
  EXPECT_TRUE(p.may_write("ns/b", at_ms(100)));
  EXPECT_FALSE(p.may_write("ns/a", at_ms(100)));
}

TEST(ExplanationPacer, AfterTheIntervalAChangeGoesOutAtOnce) {
  ExplanationPacer p(milliseconds(2000));
  p.wrote("ns/a", at_ms(0));
  EXPECT_TRUE(p.may_write("ns/a", at_ms(2500)));
  EXPECT_EQ(p.deferred(), 0u);
}

TEST(ExplanationPacer, DueWorkloadsComeEarliestFirst) {
  ExplanationPacer p(milliseconds(1000));
  p.wrote("ns/late", at_ms(300));
  p.wrote("ns/early", at_ms(100));
  EXPECT_FALSE(p.may_write("ns/late", at_ms(400)));
  EXPECT_FALSE(p.may_write("ns/early", at_ms(400)));
  EXPECT_EQ(*p.next_due(), at_ms(1100));
  EXPECT_EQ(p.take_due(at_ms(5000)), (std::vector<std::string>{"ns/early", "ns/late"}));
}

TEST(ExplanationPacer, ADeferredWriteThatCameDueMayBeWrittenBeforeItIsTaken) {
  ExplanationPacer p(milliseconds(1000));
  p.wrote("ns/a", at_ms(0));
  EXPECT_FALSE(p.may_write("ns/a", at_ms(10)));
  EXPECT_TRUE(p.may_write("ns/a", at_ms(1000)));
  EXPECT_TRUE(p.take_due(at_ms(5000)).empty());  // not written twice
}

TEST(ExplanationPacer, ForgottenWorkloadsAreNotDue) {
  ExplanationPacer p(milliseconds(1000));
  p.wrote("ns/a", at_ms(0));
  EXPECT_FALSE(p.may_write("ns/a", at_ms(10)));
  p.forget("ns/a");
  EXPECT_EQ(p.deferred(), 0u);
  EXPECT_TRUE(p.take_due(at_ms(5000)).empty());
  EXPECT_TRUE(p.may_write("ns/a", at_ms(20)));  // a new workload of that name
}

TEST(ExplanationPacer, ZeroIntervalNeverDefers) {
  ExplanationPacer p(milliseconds(0));
  p.wrote("ns/a", at_ms(0));
  EXPECT_TRUE(p.may_write("ns/a", at_ms(0)));
  EXPECT_EQ(p.tracked(), 0u);
}

TEST(ExplanationPacer, MemoryFollowsRecentWritesOnly) {
  ExplanationPacer p(milliseconds(1000));
  for (int i = 0; i < 5000; ++i) p.wrote("ns/w-" + std::to_string(i), at_ms(i * 10));
  // Writes older than one interval hold nothing back and are swept as the table grows.
  EXPECT_LT(p.tracked(), 2500u);
  EXPECT_FALSE(p.may_write("ns/w-4999", at_ms(49990 + 10)));
  EXPECT_TRUE(p.may_write("ns/w-0", at_ms(49990 + 10)));
}

}  // namespace
}  // namespace kueuepp::actors
