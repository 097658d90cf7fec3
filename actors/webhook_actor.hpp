#pragma once

// The webhook actor answers the admission webhooks' requests from the watch caches:
// the webhook server hands it each decoded AdmissionReview as an AdmissionCall, it
// decides with kube/webhook's pure decisions over its WebhookFacts and calls the reply.
// It is fed the Namespace, LocalQueue and WorkloadPriorityClass watches (every replica
// watches them, so every replica serves). A decision is a few microseconds of work on
// one object, so one actor keeps up with a busy API server; the server's answer timeout
// covers the case where it does not.

#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "kube/webhook/webhook_server.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

/// One admission request, decoded, with its reply (called once, from the actor).
struct AdmissionCall {
  kube::webhook::WebhookKind kind = kube::webhook::WebhookKind::MutateJob;
  kube::webhook::AdmissionRequest request;
  kube::webhook::AdmissionReply reply;
};

using webhook_actor =
    caf::typed_actor<caf::reacts_to<messages::ObjectsRelisted>, caf::reacts_to<messages::ObjectChanged>,
                     caf::reacts_to<messages::ObjectChanges>, caf::reacts_to<AdmissionCall>,
                     caf::replies_to<messages::IntrospectActor>::with<messages::ActorInfo>>;

webhook_actor spawn_webhook_actor(caf::actor_system& system, kube::webhook::JobWebhookPolicy policy,
                                  messages::introspection_actor introspection);

}  // namespace kueuepp::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::actors::AdmissionCall)
