#pragma once

// The label, annotation and finalizer keys of Kueue's job integration that kube/jobs reads
// or writes (../shared/reference/kueue-semantics.md section 3.1). The keys the engine's
// contract already names (queue-name, priority-class, job-min-parallelism, job-uid) come
// from core/jobs/job_workload.hpp.

#include <string_view>

#include "core/jobs/job_workload.hpp"

namespace kueuepp::kube::jobs {

inline constexpr std::string_view kQueueNameLabel = core::kQueueNameLabel;
inline constexpr std::string_view kPriorityClassLabel = core::kPriorityClassLabel;
inline constexpr std::string_view kMinParallelismAnnotation = core::kMinParallelismAnnotation;
inline constexpr std::string_view kJobUidLabel = core::kJobUidLabel;

inline constexpr std::string_view kCompletionsEqualParallelismAnnotation =
    "kueue.x-k8s.io/job-completions-equal-parallelism";
inline constexpr std::string_view kMaxExecTimeSecondsLabel = "kueue.x-k8s.io/max-exec-time-seconds";
inline constexpr std::string_view kStoppingAnnotation = "kueue.x-k8s.io/stopping";
inline constexpr std::string_view kAdmissionGatedByAnnotation = "kueue.x-k8s.io/admission-gated-by";
inline constexpr std::string_view kProvReqAnnotationPrefix = "provreq.kueue.x-k8s.io/";
inline constexpr std::string_view kResourceInUseFinalizer = "kueue.x-k8s.io/resource-in-use";

// Injected into the pod template when a Job starts.
inline constexpr std::string_view kPodSetLabel = "kueue.x-k8s.io/podset";
inline constexpr std::string_view kLocalQueueLabel = "kueue.x-k8s.io/local-queue-name";
inline constexpr std::string_view kClusterQueueLabel = "kueue.x-k8s.io/cluster-queue-name";
inline constexpr std::string_view kWorkloadAnnotation = "kueue.x-k8s.io/workload";

// Topology-aware scheduling requests on the pod template.
inline constexpr std::string_view kRequiredTopologyAnnotation = "kueue.x-k8s.io/podset-required-topology";
inline constexpr std::string_view kPreferredTopologyAnnotation = "kueue.x-k8s.io/podset-preferred-topology";
inline constexpr std::string_view kUnconstrainedTopologyAnnotation =
    "kueue.x-k8s.io/podset-unconstrained-topology";
inline constexpr std::string_view kSliceRequiredTopologyAnnotation =
    "kueue.x-k8s.io/podset-slice-required-topology";
inline constexpr std::string_view kSliceSizeAnnotation = "kueue.x-k8s.io/podset-slice-size";
inline constexpr std::string_view kPodSetGroupNameAnnotation = "kueue.x-k8s.io/podset-group-name";
/// The label the batch Job controller puts on each pod of an Indexed Job.
inline constexpr std::string_view kJobCompletionIndexLabel = "batch.kubernetes.io/job-completion-index";

inline constexpr std::string_view kKueueGroup = "kueue.x-k8s.io";
inline constexpr std::string_view kWorkloadApiVersion = "kueue.x-k8s.io/v1beta2";
inline constexpr std::string_view kMainPodSet = "main";

}  // namespace kueuepp::kube::jobs
