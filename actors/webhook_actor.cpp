#include "actors/webhook_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/webhook_facts.hpp"
#include "kube/webhook/webhook_dispatch.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct WebhookState {
  kube::webhook::JobWebhookPolicy policy;
  WebhookFacts facts;
  std::uint64_t handled = 0;
  std::uint64_t answered = 0;
  std::uint64_t refused = 0;
  std::uint64_t patched = 0;
};

using Self = webhook_actor::stateful_pointer<WebhookState>;

std::string summary(Self self) {
  const auto& st = self->state;
  json::object o;
  o["synced"] = st.facts.synced();
  o["namespaces"] = st.facts.namespaces();
  o["namespacesWithDefaultLocalQueue"] = st.facts.default_queues();
  o["defaultWorkloadPriorityClass"] = st.facts.default_priority_class_exists();
  o["answered"] = st.answered;
  o["refused"] = st.refused;
  o["patched"] = st.patched;
  return json::dump(json::value(std::move(o)));
}

}  // namespace

webhook_actor spawn_webhook_actor(caf::actor_system& system, kube::webhook::JobWebhookPolicy policy,
                                  introspection_actor introspection) {
  return system.spawn([policy = std::move(policy), introspection](Self self) -> webhook_actor::behavior_type {
    self->state.policy = policy;
    self->send(introspection,
               ActorRegistered{"webhook", "webhook", self->address(), caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [self](ObjectsRelisted& event) {
          ++self->state.handled;
          if (event.items) self->state.facts.relist(event.kind, *event.items);
        },
        [self](ObjectChanged& event) {
          ++self->state.handled;
          self->state.facts.apply(event.kind, event.deleted, event.object);
        },
        [self](ObjectChanges& batch) {
          ++self->state.handled;
          for (const auto& e : batch.changes) self->state.facts.apply(batch.kind, e.deleted, e.object);
        },
        [self](AdmissionCall& call) {
          auto& st = self->state;
          ++st.handled;
          kube::webhook::AdmissionResponse response = kube::webhook::decide(call.kind, call.request, st.policy, st.facts);
          ++st.answered;
          if (!response.allowed) ++st.refused;
          if (!response.patch.empty()) ++st.patched;
          call.reply(std::move(response));
        },
        [self](IntrospectActor) -> ActorInfo {
          return ActorInfo{"webhook", "webhook", self->mailbox().size(), self->state.handled, summary(self)};
        },
    };
  });
}

}  // namespace kueuepp::actors
