#pragma once

// Kueue's manager configuration file (config.kueue.x-k8s.io/v1beta2 Configuration, and
// the v1beta1 spellings), with Kueue's defaults. kueuepp reads the same file, so a Kueue
// user keeps their configuration when switching.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/configuration_fields.hpp"
#include "config/feature_gates.hpp"
#include "core/engine/engine_config.hpp"
#include "core/expected.hpp"
#include "core/model/labels.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::config {

struct WaitForPodsReady {
  bool enabled = true;  ///< v1beta2: on unless disabled; v1beta1: `enable`
  std::chrono::seconds timeout{30 * 60};
  bool block_admission = false;
  std::optional<std::chrono::seconds> recovery_timeout;  ///< defaults to timeout
  bool requeue_by_eviction_timestamp = true;              ///< requeuingStrategy.timestamp
  std::optional<std::int32_t> backoff_limit_count;
  std::int32_t backoff_base_seconds = 60;
  std::int32_t backoff_max_seconds = 3600;
};

struct KueueConfiguration {
  std::string ns = "kueue-system";
  bool manage_jobs_without_queue_name = false;
  /// Kueue's default when the file has none: every namespace but kube-system and `ns`.
  std::optional<core::LabelSelector> managed_jobs_namespace_selector;
  WaitForPodsReady wait_for_pods_ready;
  double client_qps = 300;
  std::int32_t client_burst = 500;
  std::vector<std::string> frameworks = {"batch/job"};
  std::vector<std::string> label_keys_to_copy;
  FeatureGates feature_gates;
  /// metrics.bindAddress and health.healthProbeBindAddress, when the file sets them
  /// (Kueue's ":8443" and ":8081" otherwise; kueuepp then serves both on --probe-listen).
  std::optional<std::string> metrics_bind_address;
  std::optional<std::string> health_probe_bind_address;
  bool metrics_cluster_queue_resources = false;  ///< metrics.enableClusterQueueResources
  bool metrics_local_queue = false;              ///< metrics.localQueueMetrics.enable and the LocalQueueMetrics gate
  bool metrics_cohorts = true;                   ///< MetricsForCohorts gate
  bool metrics_workload_creation_latency = true; ///< MetricForWorkloadCreationLatency gate
  bool leader_elect = true;
  std::string leader_election_id = "c1f6bfd2.kueue.x-k8s.io";
  /// leaderElection.resourceNamespace, when set.
  std::optional<std::string> leader_election_namespace;
  /// Leader election (one Lease per shard); client-go's defaults. Sub-second values are
  /// kept (tests run elections in a few seconds).
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  /// The webhook server: webhook.port/host/certDir and internalCertManagement. Absent
  /// values leave kueuepp's own defaults (flags, kueuepp-* names) in place.
  struct Webhook {
    bool configured = false;  ///< the file has a webhook section
    std::int32_t port = 9443;
    std::string host;
    std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";
    bool internal_cert_management = true;
    std::optional<std::string> service_name;
    std::optional<std::string> secret_name;
  } webhook;
  /// objectRetentionPolicies.workloads (with the ObjectRetentionPolicies gate on): how long
  /// a finished Workload is kept before it is deleted, and how long a Job whose Workload
  /// Kueue deactivated is kept before the Job is deleted. Absent: kept for ever.
  struct WorkloadRetention {
    std::optional<std::chrono::milliseconds> after_finished;
    std::optional<std::chrono::milliseconds> after_deactivated_by_kueue;
  } workload_retention;
  /// The admission-relevant part: fair sharing, resources, partial admission.
  core::EngineConfig engine;
  /// What the file asks for and kueuepp does not do (only with allow_unsupported).
  std::vector<UnsupportedField> ignored;
  /// Fields accepted that change nothing in kueuepp (tuning of Kueue's reconcilers).
  std::vector<UnsupportedField> without_effect;
};

struct ConfigurationDecodeOptions {
  /// Start even when the file asks for what kueuepp does not implement: those fields are
  /// listed in KueueConfiguration::ignored instead of refusing the file.
  bool allow_unsupported = false;
};

/// Decodes a Configuration document. Unknown fields are an error (Kueue reads its
/// configuration strictly), and so is every field, framework or feature gate value that
/// kueuepp does not implement, unless allowed: each error names the field and says
/// what to do.
Expected<KueueConfiguration> decode_configuration(const json::value& doc,
                                                  const ConfigurationDecodeOptions& options = {});

/// Parses a Go duration ("30s", "5m", "1h30m", "1.5h").
Expected<std::chrono::milliseconds> parse_go_duration(std::string_view text);

}  // namespace kueuepp::config
