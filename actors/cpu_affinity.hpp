#pragma once

// The Linux side of the controller's CPU placement (cpu_placement_policy.hpp): which CPUs
// the process may use, the counters one placement window is measured from, and setting
// the CPUs of every thread of the process.

#include <vector>

#include "actors/cpu_placement_policy.hpp"
#include "core/expected.hpp"

namespace kueuepp::actors {

/// The CPUs the process may use (its affinity when it started), in ascending order.
Expected<std::vector<int>> allowed_cpus();

/// Cumulative counters; two of them make a window.
struct CpuCounters {
  double monotonic_seconds = 0;
  double process_cpu_seconds = 0;
  std::vector<double> idle_seconds;  ///< per CPU of the set asked for (idle + iowait)
};

/// Reads the counters for the CPUs `cpus` (/proc/stat, /proc/self/task).
Expected<CpuCounters> read_cpu_counters(const std::vector<int>& cpus);

/// The window between two readings of the same CPUs.
CpuWindow window_between(const CpuCounters& earlier, const CpuCounters& later);

/// Sets the CPUs of every thread of the process to `cpus`. A thread that exits meanwhile
/// is skipped; any other refusal is an error naming the thread and the reason.
Status set_process_cpus(const std::vector<int>& cpus);

/// The CPUs one thread (0: the caller) may run on.
Expected<std::vector<int>> thread_cpus(int tid = 0);

}  // namespace kueuepp::actors
