#include "kube/takeover/takeover_step.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::takeover {
namespace {

TEST(TakeoverStep, EveryStepIsFoundByItsName) {
  for (TakeoverStep step : takeover_steps()) {
    auto parsed = parse_step(step_name(step));
    ASSERT_TRUE(parsed.has_value()) << step_name(step);
    EXPECT_EQ(*parsed, step);
  }
  EXPECT_FALSE(parse_step("everything").has_value());
}

// Kueue stops before anything of its is replaced, and objects are rewritten only once
// the CRDs store v1beta2 (else the rewrite would store them as v1beta1 again).
TEST(TakeoverStep, KueueStopsFirstAndStorageMigratesAfterTheCrds) {
  auto steps = takeover_steps();
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_EQ(steps[0], TakeoverStep::Check);
  EXPECT_EQ(steps[1], TakeoverStep::ScaleDown);
  EXPECT_EQ(steps[3], TakeoverStep::Crds);
  EXPECT_EQ(steps[4], TakeoverStep::MigrateStorage);
  EXPECT_EQ(steps[5], TakeoverStep::TrimStoredVersions);
}

}  // namespace
}  // namespace kueuepp::kube::takeover
