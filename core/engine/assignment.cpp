#include "core/engine/assignment.hpp"

#include <algorithm>

namespace kueuepp::core {

const char* to_string(AssignMode m) {
  switch (m) {
    case AssignMode::NoFit: return "NoFit";
    case AssignMode::Preempt: return "Preempt";
    case AssignMode::DeferredFit: return "DeferredFit";
    case AssignMode::Fit: return "Fit";
  }
  return "Unknown";
}

AssignMode PodSetAssignmentResult::representative_mode() const {
  if (mode_override) return *mode_override;
  if (reasons.empty() && !error) return AssignMode::Fit;
  if (error) return AssignMode::NoFit;
  if (flavors.empty()) return AssignMode::NoFit;
  AssignMode mode = AssignMode::Fit;
  for (const auto& [r, c] : flavors) mode = std::min(mode, c.mode);
  return mode;
}

AssignMode Assignment::representative_mode() const {
  if (pod_sets.empty()) return AssignMode::NoFit;
  if (mode_override) return *mode_override;
  AssignMode mode = AssignMode::Fit;
  for (const auto& ps : pod_sets) mode = std::min(mode, ps.representative_mode());
  return mode;
}

std::string Assignment::message(const std::vector<std::string>& pod_set_names) const {
  std::string out;
  for (const auto& ps : pod_sets) {
    if (ps.reasons.empty() && !ps.error) continue;
    const std::string& name = ps.pod_set < pod_set_names.size() ? pod_set_names[ps.pod_set] : "";
    if (ps.error) return "failed to assign flavors to pod set " + name + ": " + *ps.error;
    if (!out.empty()) out += "; ";
    std::vector<std::string> sorted = ps.reasons;
    std::sort(sorted.begin(), sorted.end());
    out += "couldn't assign flavors to pod set " + name + ": ";
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0) out += ", ";
      out += sorted[i];
    }
  }
  return out;
}

int no_fit_reason_severity(const std::string& reason) {
  if (reason == "NoMatchingFlavor") return 4;
  if (reason == "ExceedsMaxQuota") return 3;
  if (reason == "WaitingForQuota") return 2;
  if (reason == "TopologyPlacementFailed") return 1;
  return 0;
}

const std::string& most_severe_reason(const std::string& a, const std::string& b) {
  return no_fit_reason_severity(a) >= no_fit_reason_severity(b) ? a : b;
}

}  // namespace kueuepp::core
