#pragma once

// The perf run's figures as text for the terminal and as summary.yaml (Kueue's summary
// fields, plus the process figures and the threshold checks).
//
// Definitions (all times on the runner's steady millisecond clock, stamped when the
// runner receives the watch event or API answer):
//   wall time        from the first create request (the ResourceFlavor) to the end of the
//                    run: the event after which every workload was Finished and no active
//                    ClusterQueue reported pending or reserving workloads (Kueue's recorder
//                    stops on that condition; its maxWallMs measures the lifetime of the
//                    minimalkueue process, which spans the same interval plus start-up).
//   time to admission  per workload: receipt of its first event (creation) to receipt of
//                    the event showing Admitted=True (the latest admission, as Kueue);
//                    averaged per class over every workload of the class.
//   usage            per ClusterQueue class: sum of the integral of status.flavorsUsage cpu
//                    over time / (sum of nominal quota * (last event - first event)).
//   process cpu      utime + stime from /proc/PID/stat read just before stopping it;
//                    average cores = cpu time / wall time; peak RSS = VmHWM.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cmd/perf/child_process.hpp"
#include "cmd/perf/generator.hpp"
#include "cmd/perf/range_spec.hpp"
#include "cmd/perf/recorder.hpp"
#include "cmd/perf/workload_runner.hpp"

namespace kueuepp::cmd::perf {

struct ProcessReport {
  std::string name;
  std::int64_t pid = 0;
  ProcessUsage usage;
  Millis lifetime_ms = 0;  ///< since it was started, until the figures were read
};

struct RunReport {
  std::string generator_path;
  std::int64_t cluster_queues = 0;
  std::int64_t workloads_expected = 0;
  GeneratorStatus generator;
  RunnerProgress progress;
  Millis wall_ms = 0;
  Summary summary;
  std::optional<ProcessReport> controller;
  /// The Configuration file the started controller ran with; empty: its defaults.
  std::string controller_config;
  /// Arguments added to the started controller's command line (`--controller-arg`).
  std::vector<std::string> controller_args;
  /// --jobsets-every (0: every workload a raw Workload).
  std::int64_t jobsets_every = 0;
  std::optional<ProcessReport> apiserver;
  ProcessReport runner;
  bool has_range_spec = false;
  std::vector<ThresholdCheck> checks;
  std::vector<std::string> warnings;
};

/// Average cores: cpu ms / wall ms.
double average_cores(std::int64_t cpu_ms, Millis wall_ms);

std::string render_text(const RunReport& report);
std::string render_yaml(const RunReport& report);

}  // namespace kueuepp::cmd::perf
