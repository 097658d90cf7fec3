#include "config/feature_gates.hpp"

#include <algorithm>
#include <array>

namespace kueuepp::config {
namespace {

using S = GateSupport;

constexpr std::string_view kTas = "only matters with TopologyAwareScheduling, which kueuepp does not implement";
constexpr std::string_view kMultiKueue = "only matters with MultiKueue, which kueuepp does not implement";
constexpr std::string_view kDra = "only matters with KueueDRAIntegration, which kueuepp does not implement";
constexpr std::string_view kOtherKinds =
    "only matters for workload kinds kueuepp does not integrate yet (Pods, Deployments, LeaderWorkerSet, Spark)";
constexpr std::string_view kImplementation = "tunes how Kueue writes or caches objects; kueuepp has its own way";
constexpr std::string_view kAlways = "kueuepp always behaves as Kueue does with this gate at its default";
constexpr std::string_view kMissing = "kueuepp does not implement this yet";

// Kueue's gates (pkg/features/kube_features.go), sorted by name.
constexpr std::array kGates = {
    FeatureGate{"AdmissionFairSharing", true, S::NoEffect,
                "only matters with the admissionFairSharing section, which kueuepp refuses"},
    FeatureGate{"AdmissionGatedBy", true, S::KueueDefault, kAlways},
    FeatureGate{"AssignQueueLabelsForPods", true, S::NoEffect, kOtherKinds},
    FeatureGate{"CleanupProvisioningRequestsOnEviction", true, S::NoEffect,
                "only matters with ProvisioningRequest admission checks, which kueuepp does not run"},
    FeatureGate{"ConcurrentAdmission", false, S::NotImplemented, kMissing},
    FeatureGate{"CustomMetricLabels", false, S::NotImplemented, kMissing},
    FeatureGate{"DeferRayServiceFinalizationForRedisCleanup", true, S::NotImplemented,
                "kueuepp releases a deleted RayService's quota at once, without waiting for the Redis cleanup of GCS fault "
                "tolerance"},
    FeatureGate{"DisableWaitForPodsReady", false, S::Honoured, {}},
    FeatureGate{"DynamicResourceAllocation", false, S::NotImplemented, kMissing},
    FeatureGate{"ElasticJobsViaWorkloadSlices", true, S::NotImplemented, kMissing},
    FeatureGate{"ElasticJobsViaWorkloadSlicesWithTAS", false, S::NoEffect, kTas},
    FeatureGate{"FailureRecoveryPolicy", false, S::NotImplemented, kMissing},
    FeatureGate{"FairSharingPreemptWithinNominal", true, S::KueueDefault, kAlways},
    FeatureGate{"FairSharingPrioritizeNonBorrowing", true, S::KueueDefault, kAlways},
    FeatureGate{"FastQuotaReleaseInPodIntegration", false, S::NoEffect, kOtherKinds},
    FeatureGate{"FinishOrphanedWorkloads", true, S::NotImplemented, kMissing},
    FeatureGate{"FlavorFungibility", true, S::KueueDefault, kAlways},
    FeatureGate{"FlavorFungibilityImplicitPreferenceDefault", false, S::NotImplemented, kMissing},
    FeatureGate{"FlavorFungibilityPreserveScanProgress", true, S::NotImplemented, kMissing},
    FeatureGate{"KueueDRAIntegration", true, S::NotImplemented, kMissing},
    FeatureGate{"KueueDRAIntegrationConsumableCapacity", false, S::NoEffect, kDra},
    FeatureGate{"KueueDRAIntegrationExtendedResource", true, S::NoEffect, kDra},
    FeatureGate{"KueueDRAIntegrationPartitionableDevices", true, S::NoEffect, kDra},
    FeatureGate{"KueueDRARejectWorkloadsWhenDRADisabled", true, S::NoEffect, kDra},
    FeatureGate{"LWSImmutableGroupSize", true, S::NoEffect, kOtherKinds},
    FeatureGate{"LocalQueueMetrics", true, S::Honoured, {}},
    FeatureGate{"ManagedJobsNamespaceSelectorAlwaysRespected", true, S::KueueDefault,
                "locked to true in Kueue"},
    FeatureGate{"MetricForWorkloadCreationLatency", true, S::Honoured, {}},
    FeatureGate{"MetricsForCohorts", true, S::Honoured, {}},
    FeatureGate{"MultiKueue", true, S::NotImplemented, kMissing},
    FeatureGate{"MultiKueueAdaptersForCustomJobs", true, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueAllowInsecureKubeconfigs", false, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueBatchJobWithManagedBy", true, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueClusterProfile", false, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueIncrementalDispatcherConfig", true, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueIncrementalDispatcherRespectConfigOrder", true, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueKubeConfigPathValidation", true, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueManagerQuotaAutomation", false, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueOrchestratedPreemption", false, S::NoEffect, kMultiKueue},
    FeatureGate{"MultiKueueRemoteSpecSync", true, S::NoEffect, kMultiKueue},
    FeatureGate{"ObjectRetentionPolicies", true, S::Honoured, {}},
    FeatureGate{"PartialAdmission", true, S::Honoured, {}},
    FeatureGate{"PodIntegrationValidateGroupOwner", true, S::NoEffect, kOtherKinds},
    FeatureGate{"PrioritizePreemptorWorkloads", false, S::NotImplemented, kMissing},
    FeatureGate{"PriorityBoost", false, S::Honoured, {}},
    FeatureGate{"PrioritySortingWithinCohort", true, S::KueueDefault, kAlways},
    FeatureGate{"QuotaCheckStrategy", true, S::KueueDefault, kAlways},
    FeatureGate{"ReclaimablePods", true, S::KueueDefault, kAlways},
    FeatureGate{"RecomputeAssignmentUponPreemptionTargetsOverlap", true, S::NotImplemented, kMissing},
    FeatureGate{"RejectUpdatesToCQWithInvalidOnFlavors", false, S::NotImplemented, kMissing},
    FeatureGate{"RemoveFinalizersWithStrictPatch", true, S::NoEffect, kImplementation},
    FeatureGate{"SchedulerLibraryIntegration", false, S::NotImplemented, kMissing},
    FeatureGate{"SchedulingEquivalenceHashing", true, S::KueueDefault, kAlways},
    FeatureGate{"ShortWorkloadNames", false, S::NotImplemented, kMissing},
    FeatureGate{"SkipAncestorCheckForDeletedWorkloads", true, S::NoEffect, kImplementation},
    FeatureGate{"SkipReassignmentForPodOwnedWorkloads", true, S::NoEffect, kOtherKinds},
    FeatureGate{"SparkApplicationIntegration", false, S::NotImplemented, kMissing},
    FeatureGate{"TASAssignmentsEncodingByHostnamePrefix", true, S::NoEffect, kTas},
    FeatureGate{"TASBalancedPlacement", false, S::NoEffect, kTas},
    FeatureGate{"TASCacheNodeMatchResults", true, S::NoEffect, kTas},
    FeatureGate{"TASCacheTopologyTree", true, S::NoEffect, kTas},
    FeatureGate{"TASCachingRemainingResources", true, S::NoEffect, kTas},
    FeatureGate{"TASFailedNodeReplacement", true, S::NoEffect, kTas},
    FeatureGate{"TASFailedNodeReplacementFailFast", true, S::NoEffect, kTas},
    FeatureGate{"TASHandleOverlappingFlavors", true, S::NoEffect, kTas},
    FeatureGate{"TASMultiLayerTopology", true, S::NoEffect, kTas},
    FeatureGate{"TASProfileLeastFreeCapacity", false, S::NoEffect, kTas},
    FeatureGate{"TASProfileMixed", true, S::NoEffect, kTas},
    FeatureGate{"TASRecomputeAssignmentWithinSchedulingCycle", true, S::NoEffect, kTas},
    FeatureGate{"TASReplaceNodeDueToNotReadyOverFixedTime", false, S::NoEffect, kTas},
    FeatureGate{"TASReplaceNodeOnNodeTaints", true, S::NoEffect, kTas},
    FeatureGate{"TASReplaceNodeOnPodTermination", true, S::NoEffect, kTas},
    FeatureGate{"TASRespectNodeAffinityPreferred", false, S::NoEffect, kTas},
    FeatureGate{"TASValidateWorkloadSliceSize", true, S::NoEffect, kTas},
    FeatureGate{"TLSOptions", true, S::KueueDefault, "locked to true in Kueue"},
    FeatureGate{"TopologyAwareScheduling", true, S::NotImplemented, kMissing},
    FeatureGate{"UnadmittedWorkloadsExplicitStatus", false, S::NotImplemented, kMissing},
    FeatureGate{"UnadmittedWorkloadsObservability", true, S::KueueDefault, kAlways},
    FeatureGate{"ValidateRayAndSparkJobUpdates", true, S::Honoured, {}},
    FeatureGate{"VectorizedResourceRequests", true, S::NoEffect, kImplementation},
    FeatureGate{"VisibilityOnDemand", true, S::NotImplemented, kMissing},
    FeatureGate{"WorkloadIdentifierAnnotations", true, S::NotImplemented, kMissing},
    FeatureGate{"WorkloadPriorityClassDefaulting", true, S::Honoured, {}},
    FeatureGate{"WorkloadRequestUseMergePatch", false, S::NoEffect, kImplementation},
    FeatureGate{"WorkloadValidateResourcesAreNonNegative", true, S::NotImplemented, kMissing},
    FeatureGate{"WorkloadValidationForPodSetMetadata", true, S::NotImplemented, kMissing},
};

}  // namespace

std::span<const FeatureGate> kueue_feature_gates() { return kGates; }

const FeatureGate* find_feature_gate(std::string_view name) {
  auto it = std::lower_bound(kGates.begin(), kGates.end(), name,
                             [](const FeatureGate& g, std::string_view n) { return g.name < n; });
  return it != kGates.end() && it->name == name ? &*it : nullptr;
}

bool FeatureGates::enabled(std::string_view name) const {
  if (auto it = explicit_.find(name); it != explicit_.end()) return it->second;
  const FeatureGate* gate = find_feature_gate(name);
  return gate != nullptr && gate->kueue_default;
}

std::optional<std::string> unsupported_gate_value(const FeatureGate& gate, bool value) {
  switch (gate.support) {
    case GateSupport::Honoured:
    case GateSupport::NoEffect: return std::nullopt;
    case GateSupport::KueueDefault:
      if (value == gate.kueue_default) return std::nullopt;
      return std::string(gate.note) + " (" + (gate.kueue_default ? "true" : "false") + ")";
    case GateSupport::NotImplemented:
      if (!value) return std::nullopt;
      return std::string(gate.note);
  }
  return std::nullopt;
}

}  // namespace kueuepp::config
