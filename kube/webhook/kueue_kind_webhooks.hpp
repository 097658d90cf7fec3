#pragma once

// Kueue's webhooks for its own kinds (pkg/webhooks), as pure decisions, with Kueue's
// messages: the checks that the CRDs' schemas and CEL rules cannot express.
//
// mclusterqueue, mresourceflavor (CREATE): Kueue's resource-in-use finalizer.
// mworkload (CREATE): nothing to change (kueuepp implements partial admission, so the
//   pod sets' minCount is kept, as Kueue does with PartialAdmission on).
// vclusterqueue, vcohort (CREATE, UPDATE): quotas not negative, limits only under a
//   cohort (or parent), lendingLimit at most nominalQuota (ClusterQueues), resources in
//   coveredResources' order, no duplicate flavor or resource, preemption and flavor
//   fungibility combinations, the totals of flavors and resources, fairSharing weight.
// vresourceflavor (CREATE, UPDATE): taints unique by key and effect.
// vworkload (CREATE, UPDATE): admitted only (see docs: the Workload's invariants that
//   kueuepp's own controller keeps are not checked here yet).

#include "kube/webhook/admission_review.hpp"
#include "kube/webhook/field_errors.hpp"

namespace kueuepp::kube::webhook {

AdmissionResponse default_with_resource_in_use_finalizer(const AdmissionRequest& request);

FieldErrors validate_cluster_queue(const json::value& cluster_queue, const json::value* old_cluster_queue);
FieldErrors validate_cohort(const json::value& cohort);
FieldErrors validate_resource_flavor(const json::value& flavor);

AdmissionResponse review_cluster_queue(const AdmissionRequest& request);
AdmissionResponse review_cohort(const AdmissionRequest& request);
AdmissionResponse review_resource_flavor(const AdmissionRequest& request);
AdmissionResponse review_workload(const AdmissionRequest& request);

}  // namespace kueuepp::kube::webhook
