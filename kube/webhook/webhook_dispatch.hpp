#pragma once

// One admission request to the decision of the webhook it was sent to: pure, so the
// controller's webhook actor, the tests and the bench call the same code.

#include "kube/webhook/admission_review.hpp"
#include "kube/webhook/cluster_facts.hpp"
#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"

namespace kueuepp::kube::webhook {

AdmissionResponse decide(WebhookKind kind, const AdmissionRequest& request, const JobWebhookPolicy& policy,
                         const ClusterFacts& facts);

}  // namespace kueuepp::kube::webhook
