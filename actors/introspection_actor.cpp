#include "actors/introspection_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <map>

#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct Registered {
  std::string kind;
  std::string name;
  caf::strong_actor_ptr handle;
};

struct IntrospectionState {
  std::chrono::milliseconds timeout{2000};
  std::map<caf::actor_addr, Registered> actors;
};

using Self = introspection_actor::stateful_pointer<IntrospectionState>;

/// Collects the replies of a fan-out; answers when the last one (or its error) is in.
struct Aggregate {
  HttpResponder respond;
  std::size_t outstanding = 0;
  json::array items;

  void done() {
    if (--outstanding > 0) return;
    json::object o;
    o["actors"] = std::move(items);
    respond(200, "application/json", json::dump(o));
  }
};

json::value info_json(const ActorInfo& info) {
  json::object o;
  o["kind"] = info.kind;
  o["name"] = info.name;
  o["mailbox"] = info.mailbox;
  o["handled"] = info.handled;
  auto summary = json::parse(info.summary);
  o["state"] = summary ? std::move(*summary) : json::value(info.summary);
  return o;
}

void list_actors(Self self, HttpResponder respond) {
  auto& st = self->state;
  if (st.actors.empty()) {
    respond(200, "application/json", R"({"actors":[]})");
    return;
  }
  auto agg = std::make_shared<Aggregate>();
  agg->respond = std::move(respond);
  agg->outstanding = st.actors.size();
  for (const auto& [addr, reg] : st.actors) {
    // Every actor type answers IntrospectActor with ActorInfo.
    auto target = caf::actor_cast<caf::typed_actor<caf::replies_to<IntrospectActor>::with<ActorInfo>>>(reg.handle);
    std::string kind = reg.kind;
    std::string name = reg.name;
    self->request(target, self->state.timeout, IntrospectActor{})
        .then(
            [agg](ActorInfo& info) {
              agg->items.push_back(info_json(info));
              agg->done();
            },
            [agg, kind, name](caf::error& err) {
              agg->items.push_back(json::object{{"kind", kind}, {"name", name}, {"error", caf::to_string(err)}});
              agg->done();
            });
  }
}

std::optional<snapshot_actor> find_snapshot(const IntrospectionState& st) {
  for (const auto& [addr, reg] : st.actors) {
    if (reg.kind == "snapshot") return caf::actor_cast<snapshot_actor>(reg.handle);
  }
  return std::nullopt;
}

void explain(Self self, Explain query, HttpResponder respond) {
  auto snapshot = find_snapshot(self->state);
  if (!snapshot) {
    respond(503, "application/json", R"({"error":"the controller is starting"})");
    return;
  }
  self->request(*snapshot, self->state.timeout, std::move(query))
      .then([respond](ExplainReply& reply) { respond(reply.status, "application/json", reply.json); },
            [respond](caf::error& err) {
              respond(503, "application/json", json::dump(json::object{{"error", caf::to_string(err)}}));
            });
}

void answer(Self self, HttpQuery& q) {
  const std::string& path = q.path;
  if (path == "/debug/actors" || path == "/debug/actors/") {
    list_actors(self, std::move(q.respond));
    return;
  }
  const std::string cq_prefix = "/debug/clusterqueues/";
  const std::string wl_prefix = "/debug/workloads/";
  if (path.rfind(cq_prefix, 0) == 0 && path.size() > cq_prefix.size()) {
    explain(self, Explain{Explain::What::ClusterQueue, path.substr(cq_prefix.size())}, std::move(q.respond));
    return;
  }
  if (path.rfind(wl_prefix, 0) == 0) {
    std::string key = path.substr(wl_prefix.size());
    if (std::count(key.begin(), key.end(), '/') == 1 && key.front() != '/' && key.back() != '/') {
      explain(self, Explain{Explain::What::Workload, key}, std::move(q.respond));
      return;
    }
  }
  q.respond(404, "application/json",
            R"({"error":"unknown path; try /debug/actors, /debug/clusterqueues/NAME or /debug/workloads/NAMESPACE/NAME"})");
}

}  // namespace

messages::introspection_actor spawn_introspection(caf::actor_system& system, std::chrono::milliseconds timeout) {
  return system.spawn([timeout](Self self) -> introspection_actor::behavior_type {
    self->state.timeout = timeout;
    self->set_down_handler([self](caf::down_msg& msg) { self->state.actors.erase(msg.source); });
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
