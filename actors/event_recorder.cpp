#include "actors/event_recorder.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/event_correlator.hpp"
#include "actors/event_json.hpp"
#include "actors/workload_history.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct RecorderState {
  writer_actor writer;
  std::function<core::Time()> clock;
  EventCorrelator correlator;
  WorkloadHistory history;  ///< for the web view's workload pages
  std::uint64_t handled = 0;
  std::uint64_t created = 0;
  std::uint64_t bumped = 0;
  std::uint64_t failed = 0;
};

using Self = event_recorder_actor::stateful_pointer<RecorderState>;

core::Time now_of(const RecorderState& st) {
  return st.clock ? st.clock()
                  : std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

void write(Self self, WriteRequest req, std::string what) {
  self->request(self->state.writer, caf::infinite, std::move(req))
      .then(
          [self, what](WriteOutcome& o) {
            if (o.ok || o.superseded) return;
            ++self->state.failed;
            spdlog::debug("event {} not written: {} {}", what, o.reason, o.message);
          },
          [self](caf::error&) { ++self->state.failed; });
}

void record(Self self, const RecordEvent& e) {
  auto& st = self->state;
  const core::Time now = now_of(st);
  if (e.kind == ObjectKind::Workload) st.history.note(e.ns + "/" + e.name, now, e.reason, e.message, e.warning);
  if (e.history_only) return;
  EventAction a = st.correlator.observe(e, now);
  if (a.kind == EventAction::Kind::Drop) return;
  WriteRequest req;
  req.kind = ObjectKind::Event;
  req.ns = event_namespace(e);
  req.name = a.event_name;
  req.shard = e.shard;
  req.intent = WriteIntent::Event;  // nothing reads the Event written back; repeats coalesce
  if (a.kind == EventAction::Kind::Create) {
    ++st.created;
    req.verb = WriteVerb::Create;
    req.body_text = std::make_shared<const std::string>(new_event_json(e, a));
  } else {
    ++st.bumped;
    req.verb = WriteVerb::MergePatch;
    req.body = std::make_shared<const json::value>(
        json::object{{"count", a.count}, {"lastTimestamp", core::format_rfc3339(a.last)}});
  }
  write(self, std::move(req), e.reason + " on " + e.ns + "/" + e.name);
}

WorkloadHistoryReply history_of(const RecorderState& st, const std::string& key) {
  const auto* entries = st.history.find(key);
  if (entries == nullptr) return WorkloadHistoryReply{false, "[]"};
  json::array out;
  for (const HistoryEntry& h : *entries) {
    json::object o{{"reason", h.reason},
                   {"message", h.message},
                   {"type", h.warning ? "Warning" : "Normal"},
                   {"count", h.count},
                   {"firstTimestamp", core::format_rfc3339(h.first)},
                   {"lastTimestamp", core::format_rfc3339(h.last)}};
    out.push_back(std::move(o));
  }
  return WorkloadHistoryReply{true, json::dump(out)};
}

}  // namespace

event_recorder_actor spawn_event_recorder(caf::actor_system& system, writer_actor writer,
                                          introspection_actor introspection, std::function<core::Time()> clock) {
  return system.spawn([writer, introspection, clock](Self self) -> event_recorder_actor::behavior_type {
    self->state.writer = writer;
    self->state.clock = clock;
    self->send(introspection, ActorRegistered{"event-recorder", "events", self->address(),
                                              caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [self](RecordEvent& e) {
          ++self->state.handled;
          record(self, e);
        },
        [self](RecordEvents& batch) {
          ++self->state.handled;
          for (const RecordEvent& e : batch.events) record(self, e);
        },
        [self](WorkloadHistoryQuery& q) -> WorkloadHistoryReply { return history_of(self->state, q.key); },
        [self](IntrospectActor) -> ActorInfo {
          auto& st = self->state;
          json::object o{{"created", st.created},
                         {"workloadsRemembered", st.history.size()},
                         {"aggregated", st.bumped},
                         {"dropped", st.correlator.dropped()},
                         {"failed", st.failed},
                         {"tracked", st.correlator.tracked()}};
          return ActorInfo{"event-recorder", "events", self->mailbox().size(), st.handled, json::dump(o)};
        },
    };
  });
}

}  // namespace kueuepp::actors
