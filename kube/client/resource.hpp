#pragma once

// The resources kueuepp talks to: group, version, plural, kind and scope. URL building
// (kube/client/url.hpp) is driven by these descriptors.

#include <span>
#include <string>
#include <string_view>

namespace kueuepp::kube::client {

/// Descriptors are small values of string_views: build them from string literals (or
/// other storage that outlives every call using them); the client copies descriptors.
struct ResourceDescriptor {
  std::string_view group;    ///< "" for the core group
  std::string_view version;  ///< "v1", "v1beta2"
  std::string_view plural;   ///< "jobs"
  std::string_view kind;     ///< "Job"
  bool namespaced = true;

  /// "batch/v1", or "v1" for the core group.
  std::string api_version() const;
};

namespace resources {
// kueue.x-k8s.io/v1beta2
extern const ResourceDescriptor kResourceFlavor;
extern const ResourceDescriptor kClusterQueue;
extern const ResourceDescriptor kLocalQueue;
extern const ResourceDescriptor kCohort;
extern const ResourceDescriptor kWorkload;
extern const ResourceDescriptor kWorkloadPriorityClass;
extern const ResourceDescriptor kAdmissionCheck;
// built-in
extern const ResourceDescriptor kJob;             ///< batch/v1
extern const ResourceDescriptor kNamespace;       ///< v1
extern const ResourceDescriptor kPod;             ///< v1
extern const ResourceDescriptor kConfigMap;       ///< v1
extern const ResourceDescriptor kEvent;           ///< v1 (core Event)
extern const ResourceDescriptor kEventsV1Event;   ///< events.k8s.io/v1
extern const ResourceDescriptor kLease;           ///< coordination.k8s.io/v1
extern const ResourceDescriptor kPriorityClass;   ///< scheduling.k8s.io/v1
// job integrations (their CRDs may be absent)
extern const ResourceDescriptor kJobSet;          ///< jobset.x-k8s.io/v1alpha2
extern const ResourceDescriptor kPyTorchJob;      ///< kubeflow.org/v1
extern const ResourceDescriptor kTFJob;           ///< kubeflow.org/v1
extern const ResourceDescriptor kXGBoostJob;      ///< kubeflow.org/v1
extern const ResourceDescriptor kPaddleJob;       ///< kubeflow.org/v1
extern const ResourceDescriptor kJAXJob;          ///< kubeflow.org/v1
extern const ResourceDescriptor kMPIJob;          ///< kubeflow.org/v2beta1
extern const ResourceDescriptor kRayJob;          ///< ray.io/v1
extern const ResourceDescriptor kRayCluster;      ///< ray.io/v1
extern const ResourceDescriptor kRayService;      ///< ray.io/v1
extern const ResourceDescriptor kTrainJob;        ///< trainer.kubeflow.org/v1alpha1
extern const ResourceDescriptor kTrainingRuntime;  ///< trainer.kubeflow.org/v1alpha1, namespaced
extern const ResourceDescriptor kClusterTrainingRuntime;  ///< trainer.kubeflow.org/v1alpha1, cluster-scoped
extern const ResourceDescriptor kAppWrapper;      ///< workload.codeflare.dev/v1beta2
}  // namespace resources

/// Every descriptor above.
std::span<const ResourceDescriptor* const> known_resources();

/// The descriptor for an apiVersion ("batch/v1") and kind ("Job"), or nullptr.
const ResourceDescriptor* find_resource(std::string_view api_version, std::string_view kind);

}  // namespace kueuepp::kube::client
