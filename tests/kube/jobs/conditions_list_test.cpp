#include "kube/jobs/conditions_list.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace kueuepp::kube::jobs {
namespace {

using client::Condition;

TEST(ConditionsList, AddsToEmptyStatus) {
  client::Object wl = testing::object("{metadata: {name: w}}");
  json::value list = conditions_after(wl, {Condition{"QuotaReserved", "True", "QuotaReserved", "m", "", 2}}, testing::at(0));
  ASSERT_TRUE(list.is_array());
  ASSERT_EQ(list.as_array().size(), 1u);
  auto c = find_condition(list, "QuotaReserved");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->last_transition_time, "2026-01-01T00:00:00Z");
  EXPECT_EQ(c->observed_generation, 2);
}

TEST(ConditionsList, TransitionTimeMovesOnlyOnFlip) {
  client::Object wl = testing::object(R"(
status:
  conditions:
  - {type: QuotaReserved, status: "False", reason: Pending, message: old, lastTransitionTime: "2025-01-01T00:00:00Z"}
  - {type: Other, status: "True", reason: X, message: "", lastTransitionTime: "2025-01-01T00:00:00Z"}
)");
  json::value same = conditions_after(wl, {Condition{"QuotaReserved", "False", "WaitingForQuota", "new", "", {}}},
                                      testing::at(10));
  auto c = find_condition(same, "QuotaReserved");
  EXPECT_EQ(c->last_transition_time, "2025-01-01T00:00:00Z");
  EXPECT_EQ(c->reason, "WaitingForQuota");
  EXPECT_EQ(c->message, "new");
  json::value flipped = conditions_after(wl, {Condition{"QuotaReserved", "True", "QuotaReserved", "r", "", {}}},
                                         testing::at(10));
  EXPECT_EQ(find_condition(flipped, "QuotaReserved")->last_transition_time, "2026-01-01T00:00:10Z");
  // Other conditions are kept, in place.
  EXPECT_EQ(flipped.as_array()[1].as_object().at("type").as_string(), "Other");
}

TEST(ConditionsList, LongMessagesAreTruncated) {
  std::string long_message(40000, 'x');
  EXPECT_EQ(truncate_condition_message(long_message).size(), 32u * 1024u);
  EXPECT_TRUE(truncate_condition_message(long_message).ends_with(" ..."));
  EXPECT_EQ(truncate_condition_message("short"), "short");
  client::Object wl;
  json::value list = conditions_after(wl, {Condition{"Evicted", "True", "Preempted", long_message, "", {}}}, testing::at(0));
  EXPECT_EQ(find_condition(list, "Evicted")->message.size(), 32u * 1024u);
}

TEST(ConditionsList, FindConditionOnNonList) {
  EXPECT_FALSE(find_condition(json::value(nullptr), "A"));
  EXPECT_FALSE(find_condition(json::value(json::object{}), "A"));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
