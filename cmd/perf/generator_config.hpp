#pragma once

// The generator configuration of Kueue's scheduler performance test
// (test/performance/scheduler/configs/*/generator.yaml): cohort classes, each with a
// count of cohorts and queue sets; a queue set is a count of ClusterQueues with cpu
// quota and preemption policies, each fed by workload sets (a count of workloads
// created one every creationIntervalMs). Only the scheduler shape is supported; the
// TAS/DRA options (topology, dra, podCount, tasConstraint, ...) are refused by name.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "core/quantity.hpp"

namespace kueuepp::cmd::perf {

struct WorkloadTemplate {
  std::string class_name;
  std::int64_t runtime_ms = 0;
  std::int32_t priority = 0;
  /// cpu per pod (one pod per workload).
  core::Quantity request;
};

struct WorkloadsSet {
  std::int64_t count = 0;
  std::int64_t creation_interval_ms = 0;
  std::vector<WorkloadTemplate> workloads;
};

struct QueuesSet {
  std::string class_name;
  std::int64_t count = 0;
  core::Quantity nominal_quota;
  std::optional<core::Quantity> borrowing_limit;
  /// "" (the API's default, Never), Never, LowerPriority or Any.
  std::string reclaim_within_cohort;
  /// "" (Never), Never, LowerPriority or LowerOrNewerEqualPriority.
  std::string within_cluster_queue;
  std::vector<WorkloadsSet> workloads_sets;

  /// Workloads one queue of this set receives.
  std::int64_t workloads_per_queue() const;
};

struct CohortSet {
  std::string class_name;
  std::int64_t count = 0;
  std::vector<QueuesSet> queues_sets;
};

struct GeneratorConfig {
  std::string resource_flavor = "rf";
  std::vector<CohortSet> cohorts;

  std::int64_t total_cluster_queues() const;
  std::int64_t total_workloads() const;
};

/// Parses generator.yaml; `source` names the file in errors. Errors name the field
/// (`cohorts[0].queuesSets[0].nominalQuota: ...`).
Expected<GeneratorConfig> parse_generator_config(std::string_view yaml, std::string_view source = "generator");

/// Reads and parses a generator file.
Expected<GeneratorConfig> load_generator_config(const std::string& path);

/// Reads a whole file (the error names the path).
Expected<std::string> read_text_file(const std::string& path);

}  // namespace kueuepp::cmd::perf
