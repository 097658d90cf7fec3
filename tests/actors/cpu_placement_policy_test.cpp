// When the controller's threads share one CPU and when they spread (CpuPlacementPolicy).

#include "actors/cpu_placement_policy.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kueuepp::actors {
namespace {

using Action = PlacementDecision::Action;

/// A one-second window: the controller used `cores`; each CPU was idle as given.
CpuWindow second(double cores, std::vector<double> idle = {0.7, 0.9}) {
  CpuWindow w;
  w.seconds = 1.0;
  w.cpu_seconds = cores;
  w.idle_seconds = std::move(idle);
  return w;
}

CpuPlacementOptions quick() {
  CpuPlacementOptions o;
  o.settle_windows = 3;
  o.hold_windows = 4;
  return o;
}

/// Feeds light windows until the policy pins; returns the decision.
PlacementDecision settle(CpuPlacementPolicy& p, std::vector<double> idle = {0.7, 0.9}) {
  PlacementDecision d;
  for (int i = 0; i < 100 && d.action == Action::Keep; ++i) d = p.observe(second(0.3, idle));
  return d;
}

TEST(CpuPlacementPolicy, PinsOnTheIdlestCpuAfterTheSettleWindows) {
  CpuPlacementPolicy p(2, quick());
  EXPECT_EQ(p.observe(second(0.3)).action, Action::Keep);
  EXPECT_EQ(p.observe(second(0.3)).action, Action::Keep);
  const PlacementDecision d = p.observe(second(0.3));
  EXPECT_EQ(d.action, Action::Pin);
  EXPECT_EQ(d.cpu, 1u);  // idle 90 % against 70 %
  EXPECT_NE(d.why.find("idle 90%"), std::string::npos) << d.why;
  EXPECT_TRUE(p.pinned());
  EXPECT_EQ(p.pinned_cpu(), 1u);
  EXPECT_EQ(p.observe(second(0.3)).action, Action::Keep);  // stays
}

TEST(CpuPlacementPolicy, AHeavyWindowRestartsTheSettling) {
  CpuPlacementPolicy p(2, quick());
  p.observe(second(0.3));
  p.observe(second(0.3));
  EXPECT_EQ(p.observe(second(0.6)).action, Action::Keep);  // above pin_below
  EXPECT_EQ(p.observe(second(0.3)).action, Action::Keep);
  EXPECT_EQ(p.observe(second(0.3)).action, Action::Keep);
  EXPECT_EQ(p.observe(second(0.3)).action, Action::Pin);
}

TEST(CpuPlacementPolicy, DoesNotPinWhenEveryCpuIsBusy) {
  CpuPlacementPolicy p(2, quick());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(p.observe(second(0.3, {0.3, 0.4})).action, Action::Keep);
  EXPECT_FALSE(p.pinned());
  EXPECT_EQ(p.observe(second(0.3, {0.3, 0.6})).action, Action::Pin);
}

TEST(CpuPlacementPolicy, SpreadsWhenTheControllerNeedsMostOfItsCpu) {
  CpuPlacementPolicy p(2, quick());
  ASSERT_EQ(settle(p).action, Action::Pin);
  EXPECT_EQ(p.observe(second(0.8, {0.9, 0.15})).action, Action::Keep);  // 80 %: below 85 %
  const PlacementDecision d = p.observe(second(0.9, {0.95, 0.05}));
  EXPECT_EQ(d.action, Action::Spread);
  EXPECT_NE(d.why.find("90%"), std::string::npos) << d.why;
  EXPECT_FALSE(p.pinned());
}

TEST(CpuPlacementPolicy, SpreadsWhenOtherWorkCrowdsTheSharedCpu) {
  CpuPlacementPolicy p(2, quick());
  ASSERT_EQ(settle(p).action, Action::Pin);  // on CPU 1
  // CPU 1 busy 60 %, of which the controller 30 %: others 30 %, tolerated.
  EXPECT_EQ(p.observe(second(0.3, {0.9, 0.4})).action, Action::Keep);
  // Busy 80 %, the controller 30 %: others 50 %, three windows in a row (a quiet one
  // between starts the count again).
  EXPECT_EQ(p.observe(second(0.3, {0.9, 0.2})).action, Action::Keep);
  EXPECT_EQ(p.observe(second(0.3, {0.9, 0.2})).action, Action::Keep);
  EXPECT_EQ(p.observe(second(0.3, {0.9, 0.5})).action, Action::Keep);
  EXPECT_EQ(p.observe(second(0.3, {0.9, 0.2})).action, Action::Keep);
  EXPECT_EQ(p.observe(second(0.3, {0.9, 0.2})).action, Action::Keep);
  const PlacementDecision d = p.observe(second(0.3, {0.9, 0.2}));
  EXPECT_EQ(d.action, Action::Spread);
  EXPECT_NE(d.why.find("for 3 windows (50% in the last)"), std::string::npos) << d.why;
  // The other CPU being busy does not matter while pinned.
  ASSERT_EQ(settle(p).action, Action::Pin);
  EXPECT_EQ(p.observe(second(0.3, {0.0, 0.6})).action, Action::Keep);
}

TEST(CpuPlacementPolicy, StaysSpreadForTheHoldWindowsBeforePinningAgain) {
  CpuPlacementPolicy p(2, quick());
  ASSERT_EQ(settle(p).action, Action::Pin);
  ASSERT_EQ(p.observe(second(0.95)).action, Action::Spread);
  // Hold 4 windows, light all along: the settling counts during the hold, the pin waits.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(p.observe(second(0.3)).action, Action::Keep) << i;
  EXPECT_EQ(p.observe(second(0.3)).action, Action::Pin);
}

TEST(CpuPlacementPolicy, AFailedPlacementIsNotBelieved) {
  CpuPlacementPolicy p(2, quick());
  ASSERT_EQ(settle(p).action, Action::Pin);
  p.failed();
  EXPECT_FALSE(p.pinned());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(p.observe(second(0.3)).action, Action::Keep) << i;
}

TEST(CpuPlacementPolicy, NeverPinsWithOneCpuOrWithoutAWindow) {
  CpuPlacementPolicy one(1, quick());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(one.observe(second(0.1, {0.9})).action, Action::Keep);
  CpuPlacementPolicy p(2, quick());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(p.observe(CpuWindow{}).action, Action::Keep);
  // Idle figures that do not match the CPUs: no choice to make.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(p.observe(second(0.1, {0.9})).action, Action::Keep);
}

}  // namespace
}  // namespace kueuepp::actors
