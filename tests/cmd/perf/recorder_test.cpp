#include "cmd/perf/recorder.hpp"

#include <gtest/gtest.h>

namespace kueuepp::cmd::perf {
namespace {

ClusterQueueObservation cq(std::string name, Millis at, std::int64_t usage_milli, std::int64_t pending = 0,
                           std::int64_t reserving = 0) {
  ClusterQueueObservation o;
  o.at = at;
  o.name = std::move(name);
  o.class_name = "cq";
  o.cpu_usage_milli = usage_milli;
  o.cpu_nominal_milli = 20'000;
  o.pending = pending;
  o.reserving = reserving;
  o.active = true;
  return o;
}

WorkloadObservation wl(std::string uid, std::string cls, Millis at, bool admitted, bool evicted = false,
                       bool finished = false) {
  WorkloadObservation o;
  o.at = at;
  o.uid = uid;
  o.ns = "ns";
  o.name = "wl-" + uid;
  o.class_name = std::move(cls);
  o.admitted = admitted;
  o.evicted = evicted;
  o.finished = finished;
  return o;
}

TEST(Recorder, IntegratesClusterQueueUsageAsAStepFunction) {
  Recorder r;
  r.observe(cq("a", 0, 0, 0, 0));         // created
  r.observe(cq("a", 100, 5'000, 3, 1));   // 5 cpu from 100 ms
  r.observe(cq("a", 300, 20'000, 2, 2));  // 20 cpu from 300 ms
  r.observe(cq("a", 400, 0, 0, 0));       // idle from 400 ms
  r.observe(cq("a", 1000, 0, 0, 0));      // a last status event
  const ClusterQueueRecord& a = r.cluster_queues().at("a");
  // 5 cpu * 200 ms + 20 cpu * 100 ms = 3 cpu*s = 3,000,000 milli-cpu * ms.
  EXPECT_EQ(a.cpu_used, 3'000'000);
  EXPECT_EQ(a.cpu_max_usage, 20'000);
  EXPECT_EQ(a.first_event, 0);
  EXPECT_EQ(a.last.at, 1000);
  EXPECT_EQ(a.events, 5);

  Summary s = summarize(r);
  const ClusterQueueClassSummary& c = s.cluster_queue_classes.at("cq");
  EXPECT_EQ(c.queues, 1);
  EXPECT_EQ(c.nominal_quota, 20'000);
  EXPECT_EQ(c.monitoring_ms(), 1000);
  EXPECT_EQ(c.cpu_average_usage(), 3'000);  // 3 cpu*s over 1 s: 3 cpu
  // 3e6 * 100 / (20,000 * 1000) = 15 %.
  EXPECT_DOUBLE_EQ(c.usage_percent(), 15.0);
}

TEST(Recorder, ClassUsageSumsQueuesOverTheClassWindow) {
  Recorder r;
  r.observe(cq("a", 0, 0));
  r.observe(cq("a", 100, 5'000));
  r.observe(cq("a", 300, 20'000));
  r.observe(cq("a", 400, 0));
  r.observe(cq("a", 1000, 0));
  r.observe(cq("b", 500, 10'000));  // created busy at 500 ms
  r.observe(cq("b", 1500, 0));      // 10 cpu * 1000 ms = 10,000,000
  Summary s = summarize(r);
  const ClusterQueueClassSummary& c = s.cluster_queue_classes.at("cq");
  EXPECT_EQ(c.queues, 2);
  EXPECT_EQ(c.cpu_used, 13'000'000);
  EXPECT_EQ(c.nominal_quota, 40'000);
  EXPECT_EQ(c.first_event, 0);
  EXPECT_EQ(c.last_event, 1500);
  // 13e6 * 100 / (40,000 * 1500) = 21.67 %.
  EXPECT_NEAR(c.usage_percent(), 21.6667, 1e-3);
  EXPECT_EQ(c.cpu_average_usage(), 8'666);
}

TEST(Recorder, StopConditionFollowsActiveQueuesWithPendingOrReservingWorkloads) {
  Recorder r;
  EXPECT_TRUE(r.queues_idle());
  r.observe(cq("a", 0, 0, 2, 0));
  EXPECT_FALSE(r.queues_idle());
  r.observe(cq("a", 10, 1000, 0, 1));
  EXPECT_FALSE(r.queues_idle());
  EXPECT_EQ(r.busy_queues(), 1);
  auto inactive = cq("b", 10, 0, 5, 0);
  inactive.active = false;  // an inactive queue is not waited for, as in Kueue
  r.observe(inactive);
  r.observe(cq("a", 20, 0, 0, 0));
  EXPECT_TRUE(r.queues_idle());
  EXPECT_EQ(r.last_event(), 20);
}

TEST(Recorder, TimeToAdmissionCountsTheLatestAdmissionAsKueue) {
  Recorder r;
  r.observe(wl("1", "small", 10, false));        // created
  r.observe(wl("1", "small", 110, true));        // admitted after 100 ms
  r.observe(wl("1", "small", 200, true, true));  // evicted, still admitted
  r.observe(wl("1", "small", 250, false, true));  // quota released
  r.observe(wl("1", "small", 400, true, false));  // admitted again: 390 ms after creation
  r.observe(wl("1", "small", 900, true, false, true));
  r.observe(wl("2", "small", 20, false));
  r.observe(wl("2", "small", 50, true));
  r.observe(wl("3", "large", 5, false));  // never admitted

  const WorkloadRecord& w1 = r.workloads().at("1");
  EXPECT_EQ(w1.time_to_admit, 390);
  EXPECT_EQ(w1.time_to_first_admit, 100);
  EXPECT_EQ(w1.time_to_finish, 890);
  EXPECT_EQ(w1.evictions, 1);
  EXPECT_EQ(r.seen(), 3);
  EXPECT_EQ(r.ever_admitted(), 2);
  EXPECT_EQ(r.finished(), 1);
  EXPECT_EQ(r.evictions(), 1);
  EXPECT_EQ(r.running(), 1);  // workload 2

  Summary s = summarize(r);
  const WorkloadClassSummary& small = s.workload_classes.at("small");
  EXPECT_EQ(small.count, 2);
  EXPECT_EQ(small.admitted, 2);
  EXPECT_EQ(small.finished, 1);
  EXPECT_EQ(small.total_evictions, 1);
  EXPECT_EQ(small.average_time_to_admission_ms, (390 + 30) / 2);
  EXPECT_EQ(small.average_time_to_first_admission_ms, (100 + 30) / 2);
  EXPECT_EQ(small.average_time_to_finish_ms, 890 / 2);  // Kueue divides by the count
  EXPECT_EQ(small.p50_time_to_admission_ms, 30);
  EXPECT_EQ(small.p90_time_to_admission_ms, 390);
  EXPECT_EQ(small.max_time_to_admission_ms, 390);
  const WorkloadClassSummary& large = s.workload_classes.at("large");
  EXPECT_EQ(large.count, 1);
  EXPECT_EQ(large.admitted, 0);
  EXPECT_EQ(large.average_time_to_admission_ms, 0);
}

}  // namespace
}  // namespace kueuepp::cmd::perf
