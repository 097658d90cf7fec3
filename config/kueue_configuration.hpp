#pragma once

// Kueue's manager configuration file (config.kueue.x-k8s.io/v1beta2 Configuration, and
// the v1beta1 spellings), with Kueue's defaults. kueuepp reads the same file, so a Kueue
// user keeps their configuration when switching.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
  std::optional<core::LabelSelector> managed_jobs_namespace_selector;
  WaitForPodsReady wait_for_pods_ready;
  double client_qps = 300;
  std::int32_t client_burst = 500;
  std::vector<std::string> frameworks = {"batch/job"};
  std::vector<std::string> label_keys_to_copy;
  std::map<std::string, bool> feature_gates;
  std::string metrics_bind_address = ":8443";
  bool metrics_cluster_queue_resources = false;  ///< metrics.enableClusterQueueResources
  bool metrics_local_queue = false;              ///< metrics.localQueueMetrics.enable
  std::string health_probe_bind_address = ":8081";
  bool leader_elect = true;
  std::string leader_election_id = "c1f6bfd2.kueue.x-k8s.io";
  /// Leader election (one Lease per shard); client-go's defaults. Sub-second values are
  /// kept (tests run elections in a few seconds).
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  /// The admission-relevant part: fair sharing, resources, partial admission.
  core::EngineConfig engine;
};

/// Decodes a Configuration document. Unknown top-level fields are an error (Kueue reads
/// its configuration strictly); the error names the field.
Expected<KueueConfiguration> decode_configuration(const json::value& doc);

/// Parses a Go duration ("30s", "5m", "1h30m", "1.5h").
Expected<std::chrono::milliseconds> parse_go_duration(std::string_view text);

}  // namespace kueuepp::config
