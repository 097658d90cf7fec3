#include "actors/metrics_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <memory>
#include <set>

#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct MetricsState {
  std::unique_ptr<metrics::KueueMetrics> metrics;
  /// LocalQueues last reported per ClusterQueue, to drop the series of those that left.
  std::map<std::string, std::set<std::pair<std::string, std::string>>> local_queues;
  std::uint64_t handled = 0;
  std::uint64_t scrapes = 0;
};

using Self = metrics_actor::stateful_pointer<MetricsState>;

metrics::WorkloadLabels labels_of(const WorkloadMetricEvent& e) {
  return {e.cluster_queue, e.lq_namespace, e.lq_name, e.priority_class};
}

void on_event(MetricsState& st, const WorkloadMetricEvent& e) {
  metrics::KueueMetrics& m = *st.metrics;
  switch (e.what) {
    case WorkloadMetricEvent::What::Admitted:
      // Without admission checks, quota reservation and admission are one step; with
      // them, the admission follows once every check is Ready.
      if (e.reserved) m.quota_reserved(labels_of(e), e.seconds);
      if (e.admitted) m.admitted(labels_of(e), e.seconds, e.cohort_ancestors);
      if (e.checks_wait_seconds) m.admission_checks_wait(labels_of(e), *e.checks_wait_seconds);
      break;
    case WorkloadMetricEvent::What::Evicted:
      m.evicted(labels_of(e), e.reason, e.underlying_cause);
      if (!e.preemption_reason.empty()) m.preempted(e.preempting_cluster_queue, e.preemption_reason);
      break;
    case WorkloadMetricEvent::What::Finished:
      m.finished(labels_of(e), e.seconds >= 0 ? std::optional<double>(e.seconds) : std::nullopt);
      break;
  }
}

void on_gauges(MetricsState& st, const QueueGauges& g) {
  metrics::KueueMetrics& m = *st.metrics;
  m.set_cluster_queue_gauges(g.cluster_queue, g.gauges);
  auto& known = st.local_queues[g.cluster_queue];
  std::set<std::pair<std::string, std::string>> now;
  for (const auto& lq : g.local_queues) {
    m.set_local_queue_gauges({lq.ns, lq.name}, lq.gauges);
    now.emplace(lq.ns, lq.name);
  }
  for (const auto& [ns, name] : known) {
    if (now.count({ns, name}) == 0) m.remove_local_queue({ns, name});
  }
  known = std::move(now);
}

/// This binary's build, in kueue_build_info's labels (go_version holds the C++ toolchain).
metrics::BuildInfo build_info() {
  metrics::BuildInfo b;
  b.git_version = "v" KUEUEPP_VERSION_STRING;
  b.git_commit = KUEUEPP_GIT_COMMIT;
  b.build_date = KUEUEPP_BUILD_DATE;
#if defined(__clang__)
  b.go_version = "clang " __clang_version__;
#elif defined(__GNUC__)
  b.go_version = "gcc " __VERSION__;
#else
  b.go_version = "unknown";
#endif
  b.compiler = "c++20";
#if defined(__x86_64__)
  b.platform = "linux/amd64";
#elif defined(__aarch64__)
  b.platform = "linux/arm64";
#else
  b.platform = "linux/unknown";
#endif
  return b;
}

std::string summary(const MetricsState& st) {
  json::object o;
  o["clusterQueues"] = st.local_queues.size();
  o["scrapes"] = st.scrapes;
  return json::dump(o);
}

}  // namespace

messages::metrics_actor spawn_metrics(caf::actor_system& system, metrics::KueueMetricsOptions options,
                                      messages::introspection_actor introspection) {
  return system.spawn([options, introspection](Self self) -> metrics_actor::behavior_type {
    self->state.metrics = std::make_unique<metrics::KueueMetrics>(options);
    // Kueue always exports kueue_build_info: a scrape is never empty, and dashboards
    // tell versions apart by it.
    self->state.metrics->set_build_info(build_info());
    self->send(introspection,
               ActorRegistered{"metrics", "metrics", self->address(), caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [self](WorkloadMetricEvent& e) {
          ++self->state.handled;
          on_event(self->state, e);
        },
        [self](MetricReports& r) {
          ++self->state.handled;
          for (const auto& e : r.workloads) on_event(self->state, e);
          for (const auto& c : r.attempts.cycles) {
            self->state.metrics->admission_attempt(
                c.admitted ? metrics::AdmissionResult::Success : metrics::AdmissionResult::Inadmissible, c.seconds);
          }
        },
        [self](QueueGauges& g) {
          ++self->state.handled;
          on_gauges(self->state, g);
        },
        [self](ClusterQueueGone& g) {
          ++self->state.handled;
          self->state.metrics->remove_cluster_queue(g.cluster_queue);
          self->state.local_queues.erase(g.cluster_queue);
        },
        [self](ShardOwnership& o) {
          // Kueue's replica_role: a replica that acts on some shard leads, else it follows.
          ++self->state.handled;
          self->state.metrics->set_replica_role(o.held.empty() ? "follower" : "leader");
        },
        [self](ScrapeMetrics& s) {
          ++self->state.handled;
          ++self->state.scrapes;
          s.respond(std::string(metrics::Registry::kContentType), self->state.metrics->render());
        },
        [self](IntrospectActor) -> ActorInfo {
          return ActorInfo{"metrics", "metrics", self->mailbox().size(), self->state.handled, summary(self->state)};
        },
    };
  });
}

}  // namespace kueuepp::actors
