#include "actors/cluster_queue_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "actors/queue_gauges.hpp"
#include "actors/queue_history.hpp"
#include "actors/queue_report.hpp"
#include "kube/jobs/queue_status.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct ClusterQueueState {
  std::string name;
  ClusterQueueLinks links;
  std::function<core::Time()> clock;
  ClusterQueueSnapshot last;
  /// What we last wrote (or are writing), to skip unchanged rewrites.
  std::optional<json::value> written_status;
  std::map<std::string, std::optional<json::value>> written_lq_status;
  std::uint64_t handled = 0;
  std::uint64_t status_writes = 0;
  std::uint64_t status_retries = 0;
  bool retry_scheduled = false;
  QueueHistory history;  ///< the last hour's counts and usage, for the web view's charts
};

/// How long a failed status write waits before it is tried again (the client does not
/// retry a PATCH that may have been applied; this one is safe to repeat).
constexpr std::chrono::seconds kStatusRetryDelay{2};

using Self = cluster_queue_actor::stateful_pointer<ClusterQueueState>;

core::Time now_of(const ClusterQueueState& st) {
  return st.clock ? st.clock()
                  : std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

void schedule_retry(Self self) {
  auto& st = self->state;
  if (st.retry_scheduled) return;
  st.retry_scheduled = true;
  self->delayed_send(self, kStatusRetryDelay, RetryQueueStatus{});
}

void write_status(Self self, ObjectKind kind, std::string ns, std::string name, json::value status) {
  auto& st = self->state;
  WriteRequest req;
  req.shard = st.last.shard;
  req.kind = kind;
  req.verb = WriteVerb::MergePatchStatus;
  req.ns = std::move(ns);
  req.name = std::move(name);
  req.body = std::make_shared<const json::value>(json::object{{"status", std::move(status)}});
  req.intent = WriteIntent::QueueStatus;
  ++st.status_writes;
  std::string what = std::string(to_string(kind)) + " " + (req.ns.empty() ? "" : req.ns + "/") + req.name;
  // Named here: the request below takes `req` before its handler is made.
  std::string key = req.ns + "/" + req.name;
  self->request(st.links.writer, caf::infinite, std::move(req))
      .then(
          [self, what, kind, key = std::move(key)](WriteOutcome& o) {
            if (o.ok || o.superseded) return;
            const bool not_owner = o.reason == "NotOwner";
            // Forget what we thought was written so the next snapshot writes again.
            if (kind == ObjectKind::ClusterQueue) {
              self->state.written_status.reset();
            } else {
              self->state.written_lq_status.erase(key);
            }
            if (o.http_status != 404 && !not_owner) {
              spdlog::warn("status of {} not written: {} {} (tried again in {} s)", what, o.reason, o.message,
                           kStatusRetryDelay.count());
              schedule_retry(self);
            }
          },
          [what](caf::error& err) { spdlog::warn("status of {} not written: {}", what, caf::to_string(err)); });
}

/// Writes `status` unless it is what we last wrote, or what the object already shows.
void maybe_write(Self self, ObjectKind kind, const std::string& ns, const std::string& name, const ObjectPtr& object,
                 std::optional<json::value>& written, json::value status) {
  if (written && *written == status) return;
  const json::value* current = object ? object->find({"status"}) : nullptr;
  if (!written && kube::jobs::status_unchanged(current, status)) {
    written = std::move(status);
    return;
  }
  written = status;
  write_status(self, kind, ns, name, std::move(status));
}

/// Writes the statuses `snap` gives that differ from what was last written.
void write_statuses(Self self, const ClusterQueueSnapshot& snap, core::Time now) {
  auto& st = self->state;
  st.last.shard = snap.shard;
  if (snap.object) {
    maybe_write(self, ObjectKind::ClusterQueue, "", st.name, snap.object, st.written_status,
                kube::jobs::cluster_queue_status(snap.view, *snap.object, now));
  }
  for (const auto& lq : snap.local_queues) {
    if (!lq.object) continue;  // workloads name a LocalQueue that does not exist (yet)
    std::string key = lq.ns + "/" + lq.name;
    auto& written = st.written_lq_status[key];
    maybe_write(self, ObjectKind::LocalQueue, lq.ns, lq.name, lq.object, written,
                kube::jobs::local_queue_status(*lq.object, lq.counts, &snap.view, now));
  }
  // Forget LocalQueues that left this ClusterQueue.
  std::erase_if(st.written_lq_status, [&snap](const auto& kv) {
    return std::none_of(snap.local_queues.begin(), snap.local_queues.end(),
                        [&kv](const LocalQueueCounts& lq) { return lq.ns + "/" + lq.name == kv.first; });
  });
}

void on_snapshot(Self self, ClusterQueueSnapshot& snap) {
  auto& st = self->state;
  core::Time now = now_of(st);
  st.history.record(sample_of(snap, now));
  if (st.links.metrics) self->send(st.links.metrics, queue_gauges(snap));
  if (!snap.write_status) {
    // Another replica writes this queue's status. Forget what we wrote: when the shard
    // comes back, the objects as then stored say what needs writing.
    st.written_status.reset();
    st.written_lq_status.clear();
    st.last = std::move(snap);
    return;
  }
  write_statuses(self, snap, now);
  st.last = std::move(snap);
}

/// The retry timer: what failed is written again from the latest snapshot (unless the
/// shard moved away meanwhile, or a newer snapshot already wrote it).
void on_retry(Self self) {
  auto& st = self->state;
  st.retry_scheduled = false;
  if (!st.last.write_status) return;
  ++st.status_retries;
  write_statuses(self, st.last, now_of(st));
}

std::string summary(const ClusterQueueState& st) {
  json::object o;
  o["active"] = st.last.view.active;
  o["pending"] = st.last.view.pending;
  o["reserving"] = st.last.view.reserving;
  o["admitted"] = st.last.view.admitted;
  o["statusWrites"] = st.status_writes;
  o["statusRetries"] = st.status_retries;
  return json::dump(o);
}

}  // namespace

messages::cluster_queue_actor spawn_cluster_queue(caf::actor_system& system, std::string name,
                                                  ClusterQueueLinks links, std::function<core::Time()> clock) {
  return system.spawn([name, links, clock](Self self) -> cluster_queue_actor::behavior_type {
    auto& init = self->state;
    init.name = name;
    init.links = links;
    init.clock = clock;
    self->send(links.introspection, ActorRegistered{"cluster-queue", name, self->address(),
                                                    caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [self](ClusterQueueSnapshot& snap) {
          ++self->state.handled;
          on_snapshot(self, snap);
        },
        [self](RetryQueueStatus) {
          ++self->state.handled;
          on_retry(self);
        },
        [self](QueueReport& q) -> QueueReportReply {
          auto& st = self->state;
          // A queue that did not change still has its counts now: the chart goes on.
          if (!st.last.view.name.empty()) st.history.record(sample_of(st.last, now_of(st)));
          return QueueReportReply{json::dump(queue_report(st.name, st.last, q.with_history ? &st.history : nullptr))};
        },
        [self](IntrospectActor) -> ActorInfo {
          return ActorInfo{"cluster-queue", self->state.name, self->mailbox().size(), self->state.handled, summary(self->state)};
        },
    };
  });
}

}  // namespace kueuepp::actors
