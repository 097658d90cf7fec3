#pragma once

// The CPU placement actor: once per window it measures the controller's CPU use, asks
// CpuPlacementPolicy whether the controller's threads should share one CPU or spread
// over the process's CPUs, and applies the answer to every thread of the process (so
// only in `kueuepp controller`, where the process is the controller alone; standalone
// mode shares its process with the embedded API server and leaves placement to the
// kernel). A placement the system refuses is logged once and the actor stops trying.

#include <chrono>
#include <functional>
#include <vector>

#include "actors/cpu_affinity.hpp"
#include "actors/cpu_placement_policy.hpp"
#include "core/expected.hpp"
#include "messages/cpu_placement_handle.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

/// How the actor reads the counters and places the threads; the real one is
/// linux_cpu_placement(), tests inject their own.
struct CpuPlacementSystem {
  std::vector<int> allowed;  ///< the CPUs the process may use
  std::function<Expected<CpuCounters>()> read;
  std::function<Status(const std::vector<int>& cpus)> place;
};

/// The process's own CPUs, counters and placement.
Expected<CpuPlacementSystem> linux_cpu_placement();

struct CpuPlacementActorOptions {
  CpuPlacementOptions policy;
  std::chrono::milliseconds window{1000};
};

/// Starts measuring at once; the first decision comes after `settle_windows` windows.
messages::cpu_placement_actor spawn_cpu_placement(caf::actor_system& system, CpuPlacementSystem placement,
                                                  CpuPlacementActorOptions options,
                                                  messages::introspection_actor introspection);

}  // namespace kueuepp::actors
