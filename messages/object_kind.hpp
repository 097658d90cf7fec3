#pragma once

// The Kubernetes kinds the controller watches or writes, as a compact tag for messages,
// and one table of what the controller does with each (kind_traits): every question
// about a kind is answered there rather than by a switch of its own.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/client/resource.hpp"

namespace kueuepp::messages {

enum class ObjectKind : std::uint8_t {
  ResourceFlavor,
  ClusterQueue,
  Cohort,
  LocalQueue,
  WorkloadPriorityClass,
  PriorityClass,
  Namespace,
  AdmissionCheck,
  Workload,
  Job,
  JobSet,  ///< jobset.x-k8s.io/v1alpha2, watched only when its integration is enabled
  // kubeflow.org/v1 (MPIJob: v2beta1), watched only when their integration is enabled
  PyTorchJob,
  TFJob,
  XGBoostJob,
  PaddleJob,
  JAXJob,
  MPIJob,
  RayJob,  ///< ray.io/v1, watched only when its integration is enabled
  RayCluster,  ///< ray.io/v1, likewise
  RayService,  ///< ray.io/v1, likewise
  TrainJob,  ///< trainer.kubeflow.org/v1alpha1, likewise
  AppWrapper,  ///< workload.codeflare.dev/v1beta2, likewise
  // What a TrainJob's pod sets come from: watched for the TrainJob integration only
  TrainingRuntime,
  ClusterTrainingRuntime,
  Event,  ///< written only (core/v1 Events), never watched
};

inline constexpr std::size_t kObjectKinds = static_cast<std::size_t>(ObjectKind::Event) + 1;

struct KindTraits {
  ObjectKind kind;
  std::string_view name;
  bool watched;
  /// Kept by the ten thousand: watch events carry the object as packed text with only
  /// its metadata decoded (kube::client::PackedObject, messages::CachedObject).
  bool packed;
  /// How the snapshot actor routes it to the cohort trees.
  enum class Route : std::uint8_t {
    None,      ///< not the trees' business (jobs of every kind; Events are never watched)
    Everyone,  ///< every tree needs it (flavors, namespaces, priority classes, checks)
    Topology,  ///< it places ClusterQueues in trees (ClusterQueues, Cohorts, LocalQueues)
    Workload,  ///< to the tree of its queue
  };
  Route route;
  const kube::client::ResourceDescriptor* resource;  ///< the API resource it is read and written as
};

inline constexpr std::array<KindTraits, kObjectKinds> kKindTraits{{
    {ObjectKind::ResourceFlavor, "ResourceFlavor", true, false, KindTraits::Route::Everyone, &kube::client::resources::kResourceFlavor},
    {ObjectKind::ClusterQueue, "ClusterQueue", true, false, KindTraits::Route::Topology, &kube::client::resources::kClusterQueue},
    {ObjectKind::Cohort, "Cohort", true, false, KindTraits::Route::Topology, &kube::client::resources::kCohort},
    {ObjectKind::LocalQueue, "LocalQueue", true, false, KindTraits::Route::Topology, &kube::client::resources::kLocalQueue},
    {ObjectKind::WorkloadPriorityClass, "WorkloadPriorityClass", true, false, KindTraits::Route::Everyone, &kube::client::resources::kWorkloadPriorityClass},
    {ObjectKind::PriorityClass, "PriorityClass", true, false, KindTraits::Route::Everyone, &kube::client::resources::kPriorityClass},
    {ObjectKind::Namespace, "Namespace", true, false, KindTraits::Route::Everyone, &kube::client::resources::kNamespace},
    {ObjectKind::AdmissionCheck, "AdmissionCheck", true, false, KindTraits::Route::Everyone, &kube::client::resources::kAdmissionCheck},
    {ObjectKind::Workload, "Workload", true, true, KindTraits::Route::Workload, &kube::client::resources::kWorkload},
    {ObjectKind::Job, "Job", true, true, KindTraits::Route::None, &kube::client::resources::kJob},
    {ObjectKind::JobSet, "JobSet", true, true, KindTraits::Route::None, &kube::client::resources::kJobSet},
    {ObjectKind::PyTorchJob, "PyTorchJob", true, true, KindTraits::Route::None, &kube::client::resources::kPyTorchJob},
    {ObjectKind::TFJob, "TFJob", true, true, KindTraits::Route::None, &kube::client::resources::kTFJob},
    {ObjectKind::XGBoostJob, "XGBoostJob", true, true, KindTraits::Route::None, &kube::client::resources::kXGBoostJob},
    {ObjectKind::PaddleJob, "PaddleJob", true, true, KindTraits::Route::None, &kube::client::resources::kPaddleJob},
    {ObjectKind::JAXJob, "JAXJob", true, true, KindTraits::Route::None, &kube::client::resources::kJAXJob},
    {ObjectKind::MPIJob, "MPIJob", true, true, KindTraits::Route::None, &kube::client::resources::kMPIJob},
    {ObjectKind::RayJob, "RayJob", true, true, KindTraits::Route::None, &kube::client::resources::kRayJob},
    {ObjectKind::RayCluster, "RayCluster", true, true, KindTraits::Route::None, &kube::client::resources::kRayCluster},
    {ObjectKind::RayService, "RayService", true, true, KindTraits::Route::None, &kube::client::resources::kRayService},
    {ObjectKind::TrainJob, "TrainJob", true, true, KindTraits::Route::None, &kube::client::resources::kTrainJob},
    {ObjectKind::AppWrapper, "AppWrapper", true, true, KindTraits::Route::None, &kube::client::resources::kAppWrapper},
    {ObjectKind::TrainingRuntime, "TrainingRuntime", true, true, KindTraits::Route::None, &kube::client::resources::kTrainingRuntime},
    {ObjectKind::ClusterTrainingRuntime, "ClusterTrainingRuntime", true, true, KindTraits::Route::None, &kube::client::resources::kClusterTrainingRuntime},
    {ObjectKind::Event, "Event", false, false, KindTraits::Route::None, &kube::client::resources::kEvent},
}};

constexpr const KindTraits& kind_traits(ObjectKind kind) { return kKindTraits[static_cast<std::size_t>(kind)]; }

// The table is in the enum's order (kind_traits indexes it).
static_assert([] {
  for (std::size_t i = 0; i < kObjectKinds; ++i) {
    if (static_cast<std::size_t>(kKindTraits[i].kind) != i) return false;
  }
  return true;
}());

/// The watched kinds, in the enum's order.
inline constexpr auto kAllObjectKinds = [] {
  std::array<ObjectKind, kObjectKinds - 1> out{};
  std::size_t n = 0;
  for (const auto& t : kKindTraits) {
    if (t.watched) out[n++] = t.kind;
  }
  return out;
}();
static_assert([] {
  std::size_t n = 0;
  for (const auto& t : kKindTraits) n += t.watched ? 1 : 0;
  return n == kAllObjectKinds.size();
}());

constexpr std::string_view to_string(ObjectKind kind) { return kind_traits(kind).name; }

/// Whether the cohort trees hold it (the engine's objects); every other kind stays
/// with the watch, the job actor or the writer.
constexpr bool routed_to_trees(ObjectKind kind) { return kind_traits(kind).route != KindTraits::Route::None; }

}  // namespace kueuepp::messages
