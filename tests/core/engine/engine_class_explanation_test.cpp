// Workloads of one equivalence class wait together once one of them was found not to
// fit (Kueue's scheduling-equivalence hashing): only that one is evaluated, yet every
// member must say why it is pending, including one that joins the class later.

#include <gtest/gtest.h>

#include <set>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

using testing::cpu_cluster_queue;
using testing::cpu_quota;

void setup(Engine& e) {
  e.apply(ResourceFlavor{"default-flavor", {}, {}, {}, {}});
  e.apply(cpu_cluster_queue("cq", {cpu_quota("default-flavor", 4)}));
  e.apply(LocalQueue{"default", "lq", "cq", StopPolicy::None, 1.0});
  e.apply(testing::default_namespace());
}

Workload job(const std::string& name, int created) { return testing::cpu_workload(name, 4, 0, created, "lq"); }

std::set<std::string> explained(const Decisions& d, const std::string& reason) {
  std::set<std::string> out;
  for (const auto& p : d.pending) {
    if (p.reason == reason) out.insert(p.workload);
  }
  return out;
}

TEST(EngineClassExplanation, EveryMemberOfAParkedClassSaysWhyItWaits) {
  Engine e;
  setup(e);
  ASSERT_TRUE(e.apply(job("running", 100)));
  e.run_cycle(time_from_seconds(1000));
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);

  for (int i = 0; i < 3; ++i) ASSERT_TRUE(e.apply(job("w" + std::to_string(i), 200 + i)));
  CycleSummary s = e.run_cycle(time_from_seconds(1001));
  EXPECT_EQ(s.heads, 1u);  // w0 evaluated, the class parked with it
  EXPECT_EQ(e.run_cycle(time_from_seconds(1002)).heads, 0u);
  Decisions d = e.take_decisions();
  EXPECT_EQ(explained(d, "WaitingForQuota"), (std::set<std::string>{"default/w0", "default/w1", "default/w2"}));
  for (const char* key : {"default/w1", "default/w2"}) {
    auto view = e.workload(key, false);
    ASSERT_TRUE(view) << key;
    EXPECT_EQ(view->pending.reason, "WaitingForQuota") << key;
  }

  // A late member waits with the class, and says so at once.
  ASSERT_TRUE(e.apply(job("late", 300)));
  EXPECT_EQ(e.run_cycle(time_from_seconds(1003)).heads, 0u);
  EXPECT_EQ(explained(e.take_decisions(), "WaitingForQuota"), (std::set<std::string>{"default/late"}));

  // Echoes of the same objects write nothing new.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(e.apply(job("w" + std::to_string(i), 200 + i)));
  e.run_cycle(time_from_seconds(1004));
  EXPECT_TRUE(e.take_decisions().pending.empty());
}

}  // namespace
}  // namespace kueuepp::core
