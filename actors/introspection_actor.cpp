#include "actors/introspection_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <algorithm>
#include <map>

#include "actors/cohort_view.hpp"
#include "actors/introspection_query.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

struct Registered {
  std::string kind;
  std::string name;
  caf::strong_actor_ptr handle;
};

/// An actor's handled count when last asked, for its message rate.
struct LastCount {
  std::uint64_t handled = 0;
  SteadyTime at{};
};

struct IntrospectionState {
  std::chrono::milliseconds timeout{2000};
  std::function<SteadyTime()> clock;
  std::map<caf::actor_addr, Registered> actors;
  std::map<caf::actor_addr, LastCount> last_counts;
};

using Self = introspection_actor::stateful_pointer<IntrospectionState>;

constexpr std::string_view kUnknownPath =
    R"({"error":"unknown path; try /debug/actors, /debug/cohorts, /debug/clusterqueues/NAME, /debug/clusterqueues/NAME/history or /debug/workloads/NAMESPACE/NAME"})";

SteadyTime now_of(const IntrospectionState& st) { return st.clock ? st.clock() : std::chrono::steady_clock::now(); }

std::string error_json(const std::string& message) { return json::dump(json::object{{"error", message}}); }

/// Collects the replies of a fan-out; answers when the last one (or its error) is in.
template <class Item>
struct Aggregate {
  std::function<void(std::vector<Item>&)> finish;
  std::size_t outstanding = 0;
  std::vector<Item> items;

  void done() {
    if (--outstanding > 0) return;
    finish(items);
  }
};

json::object info_json(const ActorInfo& info) {
  json::object o;
  o["kind"] = info.kind;
  o["name"] = info.name;
  o["mailbox"] = info.mailbox;
  o["handled"] = info.handled;
  auto summary = json::parse(info.summary);
  o["state"] = summary ? std::move(*summary) : json::value(info.summary);
  return o;
}

/// Messages per second since the previous query of the same actor (absent the first time).
void add_rate(IntrospectionState& st, const caf::actor_addr& addr, json::object& o, std::uint64_t handled) {
  const SteadyTime now = now_of(st);
  auto it = st.last_counts.find(addr);
  if (it != st.last_counts.end() && now > it->second.at && handled >= it->second.handled) {
    const double seconds = std::chrono::duration<double>(now - it->second.at).count();
    o["messagesPerSecond"] = static_cast<double>(handled - it->second.handled) / seconds;
  }
  st.last_counts[addr] = LastCount{handled, now};
}

void list_actors(Self self, HttpResponder respond) {
  auto& st = self->state;
  if (st.actors.empty()) {
    respond(200, "application/json", R"({"actors":[]})");
    return;
  }
  auto agg = std::make_shared<Aggregate<json::object>>();
  agg->finish = [respond](std::vector<json::object>& items) {
    json::array out;
    for (auto& i : items) out.push_back(std::move(i));
    respond(200, "application/json", json::dump(json::object{{"actors", std::move(out)}}));
  };
  agg->outstanding = st.actors.size();
  for (const auto& [addr, reg] : st.actors) {
    // Every actor type answers IntrospectActor with ActorInfo.
    auto target = caf::actor_cast<caf::typed_actor<caf::replies_to<IntrospectActor>::with<ActorInfo>>>(reg.handle);
    std::string kind = reg.kind;
    std::string name = reg.name;
    self->request(target, self->state.timeout, IntrospectActor{})
        .then(
            [self, agg, addr = addr](ActorInfo& info) {
              json::object o = info_json(info);
              add_rate(self->state, addr, o, info.handled);
              agg->items.push_back(std::move(o));
              agg->done();
            },
            [agg, kind, name](caf::error& err) {
              agg->items.push_back(json::object{{"kind", kind}, {"name", name}, {"error", caf::to_string(err)}});
              agg->done();
            });
  }
}

std::vector<std::pair<std::string, cluster_queue_actor>> cluster_queue_actors(const IntrospectionState& st) {
  std::vector<std::pair<std::string, cluster_queue_actor>> out;
  for (const auto& [addr, reg] : st.actors) {
    if (reg.kind == "cluster-queue") out.emplace_back(reg.name, caf::actor_cast<cluster_queue_actor>(reg.handle));
  }
  return out;
}

void list_cohorts(Self self, HttpResponder respond) {
  auto queues = cluster_queue_actors(self->state);
  if (queues.empty()) {
    respond(200, "application/json", json::dump(cohort_view({})));
    return;
  }
  auto agg = std::make_shared<Aggregate<json::object>>();
  agg->finish = [respond](std::vector<json::object>& reports) {
    respond(200, "application/json", json::dump(cohort_view(std::move(reports))));
  };
  agg->outstanding = queues.size();
  for (auto& [name, actor] : queues) {
    self->request(actor, self->state.timeout, QueueReport{false})
        .then(
            [agg](QueueReportReply& reply) {
              auto doc = json::parse(reply.json);
              if (doc && doc->is_object()) agg->items.push_back(std::move(doc->as_object()));
              agg->done();
            },
            // A queue that did not answer in time is left out of this answer only.
            [agg](caf::error&) { agg->done(); });
  }
}

void queue_history(Self self, const std::string& name, HttpResponder respond) {
  for (auto& [queue, actor] : cluster_queue_actors(self->state)) {
    if (queue != name) continue;
    self->request(actor, self->state.timeout, QueueReport{true})
        .then([respond](QueueReportReply& reply) { respond(200, "application/json", reply.json); },
              [respond](caf::error& err) { respond(503, "application/json", error_json(caf::to_string(err))); });
    return;
  }
  respond(404, "application/json", error_json("ClusterQueue " + name + " has no actor on this replica"));
}

std::optional<snapshot_actor> find_snapshot(const IntrospectionState& st) {
  for (const auto& [addr, reg] : st.actors) {
    if (reg.kind == "snapshot") return caf::actor_cast<snapshot_actor>(reg.handle);
  }
  return std::nullopt;
}

std::optional<event_recorder_actor> find_event_recorder(const IntrospectionState& st) {
  for (const auto& [addr, reg] : st.actors) {
    if (reg.kind == "event-recorder") return caf::actor_cast<event_recorder_actor>(reg.handle);
  }
  return std::nullopt;
}

/// Adds what the event recorder remembers of the workload (as "events") to `reply`.
void add_history(Self self, const std::string& key, ExplainReply reply, HttpResponder respond) {
  auto recorder = find_event_recorder(self->state);
  if (!recorder || reply.status != 200) {
    respond(reply.status, "application/json", reply.json);
    return;
  }
  self->request(*recorder, self->state.timeout, WorkloadHistoryQuery{key})
      .then(
          [respond, reply](WorkloadHistoryReply& history) {
            auto doc = json::parse(reply.json);
            auto events = json::parse(history.json);
            if (!doc || !doc->is_object() || !events) {
              respond(reply.status, "application/json", reply.json);
              return;
            }
            doc->as_object()["events"] = std::move(*events);
            respond(200, "application/json", json::dump(*doc));
          },
          [respond, reply](caf::error&) { respond(reply.status, "application/json", reply.json); });
}

void explain(Self self, Explain query, HttpResponder respond) {
  auto snapshot = find_snapshot(self->state);
  if (!snapshot) {
    respond(503, "application/json", R"({"error":"the controller is starting"})");
    return;
  }
  const bool workload = query.what == Explain::What::Workload;
  std::string key = query.key;
  self->request(*snapshot, self->state.timeout, std::move(query))
      .then(
          [self, respond, workload, key](ExplainReply& reply) {
            if (workload) {
              add_history(self, key, std::move(reply), respond);
            } else {
              respond(reply.status, "application/json", reply.json);
            }
          },
          [respond](caf::error& err) { respond(503, "application/json", error_json(caf::to_string(err))); });
}

void answer(Self self, HttpQuery& q) {
  const IntrospectionTarget target = split_target(q.path);
  const std::string& path = target.path;
  if (path == "/debug/actors" || path == "/debug/actors/") {
    list_actors(self, std::move(q.respond));
    return;
  }
  if (path == "/debug/cohorts" || path == "/debug/cohorts/") {
    list_cohorts(self, std::move(q.respond));
    return;
  }
  const std::string cq_prefix = "/debug/clusterqueues/";
  const std::string wl_prefix = "/debug/workloads/";
  if (path.rfind(cq_prefix, 0) == 0 && path.size() > cq_prefix.size()) {
    std::string name = path.substr(cq_prefix.size());
    const std::string history_suffix = "/history";
    if (name.size() > history_suffix.size() && name.ends_with(history_suffix)) {
      queue_history(self, name.substr(0, name.size() - history_suffix.size()), std::move(q.respond));
      return;
    }
    if (name.find('/') == std::string::npos) {
      auto page = page_of(target, Explain::kDefaultPendingPage, Explain::kMaxPendingPage);
      if (!page) {
        q.respond(400, "application/json", error_json(page.error().message));
        return;
      }
      Explain query{Explain::What::ClusterQueue, std::move(name)};
      query.offset = page->offset;
      query.limit = page->limit;
      explain(self, std::move(query), std::move(q.respond));
      return;
    }
  }
  if (path.rfind(wl_prefix, 0) == 0) {
    std::string key = path.substr(wl_prefix.size());
    if (std::count(key.begin(), key.end(), '/') == 1 && key.front() != '/' && key.back() != '/') {
      explain(self, Explain{Explain::What::Workload, key}, std::move(q.respond));
      return;
    }
  }
  q.respond(404, "application/json", std::string(kUnknownPath));
}

}  // namespace

messages::introspection_actor spawn_introspection(caf::actor_system& system, std::chrono::milliseconds timeout,
                                                  std::function<SteadyTime()> clock) {
  return system.spawn([timeout, clock](Self self) -> introspection_actor::behavior_type {
    self->state.timeout = timeout;
    self->state.clock = clock;
    self->set_down_handler([self](caf::down_msg& msg) {
      self->state.actors.erase(msg.source);
      self->state.last_counts.erase(msg.source);
    });
    return {
        [self](ActorRegistered& r) {
          if (!r.handle) return;
          self->monitor(r.handle);
          self->state.actors[r.address] = Registered{r.kind, r.name, r.handle};
        },
        [self](HttpQuery& q) { answer(self, q); },
    };
  });
}

}  // namespace kueuepp::actors
