// Updating an existing series does not allocate: counts calls of the global operator new
// (replaced in this program only) around the hot path.

#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>

#include "core/metrics/kueue_metrics.hpp"
#include "core/metrics/metrics_registry.hpp"

namespace {
std::size_t g_allocations = 0;

void* counted_allocation(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return counted_allocation(size); }
void* operator new[](std::size_t size) { return counted_allocation(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace kueuepp::metrics {
namespace {

// Label values longer than the small-string buffer, so a copy would have to allocate.
constexpr std::string_view kQueue = "cluster-queue-with-a-name-longer-than-sso";
constexpr std::string_view kPriority = "a-priority-class-name-longer-than-sso";

TEST(MetricsAllocation, UpdatingExistingSeriesDoesNotAllocate) {
  Registry registry({{"replica_role", "leader"}});
  Family& counter = registry.counter("test_total", "T.", {"cluster_queue", "priority_class"});
  Family& gauge = registry.gauge("test_gauge", "G.", {"priority_class", "cluster_queue"});
  Family& histogram = registry.histogram("test_seconds", "H.", {"cluster_queue", "priority_class"},
                                         exponential_buckets(1, 2, 16));
  counter.inc({kQueue, kPriority});
  gauge.set({kPriority, kQueue}, 1);
  histogram.observe({kQueue, kPriority}, 1);

  const std::size_t before = g_allocations;
  for (int i = 0; i < 1000; ++i) {
    counter.inc({kQueue, kPriority});
    gauge.add({kPriority, kQueue}, 1);
    gauge.set({kPriority, kQueue}, i);
    histogram.observe({kQueue, kPriority}, i);
    [[maybe_unused]] auto v = counter.value({kQueue, kPriority});
  }
  const std::size_t allocations = g_allocations - before;
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(counter.value({kQueue, kPriority}), 1001);
}

TEST(MetricsAllocation, FirstSampleOfANewSeriesAllocates) {
  // The counting itself works: a new series does allocate.
  Registry registry;
  Family& counter = registry.counter("test_total", "T.", {"cluster_queue"});
  const std::size_t before = g_allocations;
  counter.inc({kQueue});
  EXPECT_GT(g_allocations - before, 0u);
}

TEST(MetricsAllocation, KueueHelpersOnExistingSeriesDoNotAllocate) {
  KueueMetricsOptions options;
  options.local_queue_metrics = true;
  options.cluster_queue_resources = true;
  options.fair_sharing = true;
  KueueMetrics metrics(options);
  const WorkloadLabels wl{kQueue, "team-namespace", "team-queue-with-a-long-name", kPriority};
  const std::vector<std::string> cohorts{"a-cohort-with-a-long-name", "the-root-cohort-with-a-long-name"};

  ClusterQueueGauges gauges;
  gauges.cohort = cohorts[0];
  gauges.root_cohort = cohorts[1];
  gauges.status = ClusterQueueStatus::Active;
  gauges.pending_active = 3;
  gauges.unadmitted = {{"WaitingForQuota", "", 2}, {"NoMatchingFlavor", "", 1}};
  gauges.resources = {{"on-demand-flavor-long-name", "cpu", 10, std::nullopt, 4, 3, 2},
                      {"on-demand-flavor-long-name", "memory", 1e9, 5e8, std::nullopt, 1e8, 1e8}};
  gauges.pending_resources = {{"cpu", 2}, {"memory", 0}};
  gauges.weighted_share = 0.5;

  auto hot_path = [&] {
    metrics.admission_attempt(AdmissionResult::Success, 0.01);
    metrics.quota_reserved(wl, 2);
    metrics.admitted(wl, 3, cohorts);
    metrics.evicted(wl, values::kEvictedPreempted, values::kCauseNone);
    metrics.preempted(kQueue, values::kPreemptedInClusterQueue);
    metrics.finished(wl, 60);
    metrics.set_cluster_queue_gauges(kQueue, gauges);
  };
  hot_path();  // creates every series

  const std::size_t before = g_allocations;
  for (int i = 0; i < 100; ++i) hot_path();
  const std::size_t allocations = g_allocations - before;
  EXPECT_EQ(allocations, 0u);
}

}  // namespace
}  // namespace kueuepp::metrics
