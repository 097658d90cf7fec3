#include "actors/cpu_placement_policy.hpp"

#include <algorithm>
#include <cstdio>

namespace kueuepp::actors {

namespace {

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100.0);
  return buf;
}

}  // namespace

CpuPlacementPolicy::CpuPlacementPolicy(std::size_t cpus, CpuPlacementOptions options)
    : cpus_(cpus), options_(options) {
  if (options_.settle_windows == 0) options_.settle_windows = 1;
  if (options_.crowded_windows == 0) options_.crowded_windows = 1;
}

PlacementDecision CpuPlacementPolicy::observe(const CpuWindow& window) {
  if (cpus_ < 2 || !(window.seconds > 0)) return {};
  const double usage = window.cpu_seconds / window.seconds;
  return pinned() ? observe_pinned(window, usage) : observe_spread(window, usage);
}

PlacementDecision CpuPlacementPolicy::observe_pinned(const CpuWindow& window, double usage) {
  // The shared CPU's busy time that was not the controller's (its threads ran there alone).
  double others = 0;
  if (window.idle_seconds.size() == cpus_) {
    const double busy = window.seconds - window.idle_seconds[*pinned_cpu_];
    others = std::max(0.0, busy - window.cpu_seconds) / window.seconds;
  }
  crowded_ = others > options_.max_others_share ? crowded_ + 1 : 0;
  std::string why;
  if (usage > options_.spread_above) {
    why = "the controller used " + percent(usage) + " of its CPU";
  } else if (crowded_ >= options_.crowded_windows) {
    why = "other work took more than " + percent(options_.max_others_share) + " of the CPU it shared for " +
          std::to_string(crowded_) + " windows (" + percent(others) + " in the last)";
  } else {
    return {};
  }
  crowded_ = 0;
  pinned_cpu_.reset();
  light_windows_ = 0;
  hold_left_ = options_.hold_windows;
  return {PlacementDecision::Action::Spread, 0, std::move(why)};
}

PlacementDecision CpuPlacementPolicy::observe_spread(const CpuWindow& window, double usage) {
  light_windows_ = usage < options_.pin_below ? light_windows_ + 1 : 0;
  if (hold_left_ > 0) {
    --hold_left_;
    return {};
  }
  if (light_windows_ < options_.settle_windows) return {};
  auto best = idlest(window);
  if (!best || best->second < options_.min_idle_to_pin) return {};
  pinned_cpu_ = best->first;
  light_windows_ = 0;
  return {PlacementDecision::Action::Pin, best->first,
          "the controller used under " + percent(options_.pin_below) + " of a CPU for " +
              std::to_string(options_.settle_windows) + " windows; the CPU chosen was idle " +
              percent(best->second) + " of the last"};
}

std::optional<std::pair<std::size_t, double>> CpuPlacementPolicy::idlest(const CpuWindow& window) const {
  if (window.idle_seconds.size() != cpus_) return std::nullopt;
  std::size_t best = 0;
  for (std::size_t i = 1; i < cpus_; ++i) {
    if (window.idle_seconds[i] > window.idle_seconds[best]) best = i;
  }
  return std::make_pair(best, window.idle_seconds[best] / window.seconds);
}

void CpuPlacementPolicy::failed() {
  pinned_cpu_.reset();
  light_windows_ = 0;
  hold_left_ = options_.hold_windows;
}

}  // namespace kueuepp::actors
