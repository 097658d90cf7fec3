#pragma once

// Kueue's expectations file (test/performance/scheduler/configs/*/rangespec.yaml) and the
// comparison its checker (checker/checker_test.go) makes:
//   cmd.maxWallMs                         wall time of the run must not exceed it
//   cmd.mCPU, cmd.maxrss                  the controller's average milli-cpu and peak RSS (KiB)
//   clusterQueueClassesMinUsage[class]    usage % (see ClusterQueueClassSummary) at least this
//   wlClassesMaxAvgTimeToAdmissionMs[c]   average time to admission of class c at most this
// A class the run recorded without a threshold fails, as in Kueue's checker; so does a
// threshold for a class the run never recorded.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/perf/recorder.hpp"
#include "core/expected.hpp"

namespace kueuepp::cmd::perf {

struct RangeSpec {
  std::optional<std::int64_t> max_wall_ms;
  std::optional<std::int64_t> max_mcpu;
  std::optional<std::int64_t> max_rss_kib;
  std::map<std::string, double> cluster_queue_classes_min_usage;
  std::map<std::string, std::int64_t> workload_classes_max_avg_time_to_admission_ms;
};

/// Parses rangespec.yaml strictly (unknown fields are errors, as UnmarshalStrict).
Expected<RangeSpec> parse_range_spec(std::string_view yaml, std::string_view source = "rangespec");
Expected<RangeSpec> load_range_spec(const std::string& path);

/// The figures a range spec is compared with.
struct MeasuredRun {
  Millis wall_ms = 0;
  /// The controller's (user+system) cpu * 1000 / wall; nullopt when not measured.
  std::optional<std::int64_t> controller_mcpu;
  std::optional<std::int64_t> controller_max_rss_kib;
  Summary summary;
};

struct ThresholdCheck {
  std::string name;    ///< e.g. `wlClassesMaxAvgTimeToAdmissionMs.large`
  std::string actual;  ///< with unit
  std::string limit;   ///< e.g. `<= 23000 ms`
  bool pass = false;
};

std::vector<ThresholdCheck> check_range_spec(const RangeSpec& spec, const MeasuredRun& run);

}  // namespace kueuepp::cmd::perf
