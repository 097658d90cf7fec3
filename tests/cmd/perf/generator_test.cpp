#include "cmd/perf/generator.hpp"

#include <gtest/gtest.h>

namespace kueuepp::cmd::perf {
namespace {

// --jobsets-every N: the last of every N workloads of a set, so a set of N workloads
// holds one JobSet and N = 1 makes every workload one.
TEST(WorkloadMix, EveryNthWorkloadOfASetIsAJobSet) {
  WorkloadMix none;
  WorkloadMix third{3};
  WorkloadMix all{1};
  std::vector<std::int64_t> jobsets;
  for (std::int64_t i = 0; i < 9; ++i) {
    EXPECT_FALSE(none.is_jobset(i));
    EXPECT_TRUE(all.is_jobset(i));
    if (third.is_jobset(i)) jobsets.push_back(i);
  }
  EXPECT_EQ(jobsets, (std::vector<std::int64_t>{2, 5, 8}));
}

}  // namespace
}  // namespace kueuepp::cmd::perf
