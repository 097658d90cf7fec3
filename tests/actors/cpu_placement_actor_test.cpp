// The CPU placement actor on CAF's test coordinator, with scripted counters: it measures
// a window per tick, applies the policy's decisions to the threads, and stops trying when
// the system refuses.

#include "actors/cpu_placement_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/introspection_actor.hpp"
#include "tests/actors/deterministic_actor_test.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {
namespace {

/// Counters that advance one second per reading: the controller used `cores` of it and
/// CPUs 2 and 5 were idle as set.
struct ScriptedCpus {
  double cores = 0.2;
  std::vector<double> idle = {0.5, 0.8};
  CpuCounters now;
  std::vector<std::vector<int>> placed;
  bool refuse = false;

  CpuPlacementSystem system() {
    CpuPlacementSystem s;
    s.allowed = {2, 5};
    now.idle_seconds = {0, 0};
    s.read = [this]() -> Expected<CpuCounters> {
      now.monotonic_seconds += 1;
      now.process_cpu_seconds += cores;
      for (std::size_t i = 0; i < idle.size(); ++i) now.idle_seconds[i] += idle[i];
      return now;
    };
    s.place = [this](const std::vector<int>& cpus) -> Status {
      if (refuse) return fail("cannot set the CPUs of thread 7: Operation not permitted");
      placed.push_back(cpus);
      return {};
    };
    return s;
  }
};

class CpuPlacementActorTest : public DeterministicActorTest {
 protected:
  CpuPlacementActorTest() {
    introspection_ = spawn_introspection(*system_);
    CpuPlacementActorOptions options;
    options.policy.settle_windows = 2;
    options.policy.hold_windows = 3;
    actor_ = spawn_cpu_placement(*system_, cpus_.system(), options, introspection_);
    sched_->run();  // the first reading
  }
  ~CpuPlacementActorTest() override {
    caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(introspection_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  /// Lets `n` windows pass.
  void windows(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(sched_->trigger_timeout()) << "no tick pending after window " << i;
      sched_->run();
    }
  }

  json::object summary() {
    std::string text;
    system_->spawn([a = actor_, &text](caf::event_based_actor* self) {
      self->request(a, caf::infinite, messages::IntrospectActor{}).then([&text](const messages::ActorInfo& info) {
        text = info.summary;
      });
    });
    sched_->run();
    auto parsed = json::parse(text);
    return parsed && parsed->is_object() ? parsed->as_object() : json::object{};
  }

  ScriptedCpus cpus_;
  messages::introspection_actor introspection_;
  messages::cpu_placement_actor actor_;
};

TEST_F(CpuPlacementActorTest, SharesTheIdlestCpuOnceLightThenSpreadsUnderLoad) {
  windows(1);
  EXPECT_TRUE(cpus_.placed.empty());
  windows(1);
  ASSERT_EQ(cpus_.placed.size(), 1u);
  EXPECT_EQ(cpus_.placed[0], (std::vector<int>{5}));  // idle 80 % against 50 %
  auto s = summary();
  EXPECT_EQ(s.at("placement").as_string(), "one CPU");
  EXPECT_EQ(s.at("cpu").to_number<int>(), 5);
  EXPECT_EQ(s.at("pins").to_number<int>(), 1);
  cpus_.cores = 0.95;
  cpus_.idle = {0.9, 0.05};
  windows(1);
  ASSERT_EQ(cpus_.placed.size(), 2u);
  EXPECT_EQ(cpus_.placed[1], (std::vector<int>{2, 5}));
  s = summary();
  EXPECT_EQ(s.at("placement").as_string(), "spread");
  EXPECT_EQ(s.at("spreads").to_number<int>(), 1);
  EXPECT_NE(s.at("lastChange").as_string().find("95%"), std::string::npos);
}

TEST_F(CpuPlacementActorTest, ARefusedPlacementStopsTheActorTrying) {
  cpus_.refuse = true;
  windows(2);
  EXPECT_TRUE(cpus_.placed.empty());
  auto s = summary();
  EXPECT_EQ(s.at("placement").as_string(), "spread");
  EXPECT_NE(s.at("error").as_string().find("Operation not permitted"), std::string::npos);
  EXPECT_FALSE(sched_->trigger_timeout()) << "no further tick after giving up";
}

}  // namespace
}  // namespace kueuepp::actors
