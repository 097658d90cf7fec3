#pragma once

// Whether the controller's threads share one CPU or spread over the CPUs the process may
// use. The controller's threads hand work to each other thousands of times a second
// (watch event -> actor -> writer -> client -> answer -> actor): on one CPU a hand-off
// puts the woken thread on the local run queue; across CPUs it takes an inter-processor
// interrupt to a CPU that is usually asleep, which on a virtual machine is an exit to
// the hypervisor on both sides. While the controller needs a fraction of one CPU, one
// CPU does the same work with less CPU time (on Kueue's baseline shape, about a tenth
// less, and admissions come sooner); once it needs more, or the CPU it shares is busy
// with other work, spreading gives it room.
//
// Pure: the actor (cpu_placement_actor) measures one window at a time and applies the
// decision (cpu_affinity).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kueuepp::actors {

struct CpuPlacementOptions {
  /// Share one CPU once `settle_windows` windows in a row each used less than this
  /// share of one CPU...
  double pin_below = 0.5;
  std::size_t settle_windows = 5;
  /// ... and the CPU chosen (the idlest) was idle at least this share of the last window.
  double min_idle_to_pin = 0.5;
  /// Spread again when a window used more than this share of one CPU...
  double spread_above = 0.85;
  /// ... or when other work took more than this share of the CPU it shares (its threads
  /// would wait behind that work) in `crowded_windows` windows in a row: the kernel
  /// moves other processes between CPUs, and one busy second is no reason to spread.
  double max_others_share = 0.4;
  std::size_t crowded_windows = 3;
  /// Once spread, stay spread at least this many windows (no flapping).
  std::size_t hold_windows = 30;
};

/// What one window measured.
struct CpuWindow {
  double seconds = 0;           ///< the window's length
  double cpu_seconds = 0;       ///< CPU time the process used in it
  /// Idle time of each CPU the process may use (in the order of the allowed set).
  std::vector<double> idle_seconds;
};

struct PlacementDecision {
  enum class Action { Keep, Pin, Spread };
  Action action = Action::Keep;
  std::size_t cpu = 0;  ///< for Pin: index into the allowed set
  std::string why;      ///< for Pin and Spread
};

class CpuPlacementPolicy {
 public:
  /// `cpus`: how many CPUs the process may use; with fewer than two it never pins.
  explicit CpuPlacementPolicy(std::size_t cpus, CpuPlacementOptions options = {});

  /// The decision after one more window. The caller applies Pin and Spread; a failed
  /// application is reported with failed() so the policy does not believe it.
  PlacementDecision observe(const CpuWindow& window);
  /// The last Pin or Spread could not be applied: back to spread, held.
  void failed();

  bool pinned() const { return pinned_cpu_.has_value(); }
  std::optional<std::size_t> pinned_cpu() const { return pinned_cpu_; }

 private:
  PlacementDecision observe_pinned(const CpuWindow& window, double usage);
  PlacementDecision observe_spread(const CpuWindow& window, double usage);
  /// The idlest CPU of the window and its idle share, if the window measured them.
  std::optional<std::pair<std::size_t, double>> idlest(const CpuWindow& window) const;

  std::size_t cpus_;
  CpuPlacementOptions options_;
  std::optional<std::size_t> pinned_cpu_;
  std::size_t light_windows_ = 0;  ///< consecutive windows below pin_below
  std::size_t crowded_ = 0;        ///< consecutive windows with others above max_others_share
  std::size_t hold_left_ = 0;      ///< windows to stay spread
};

}  // namespace kueuepp::actors
