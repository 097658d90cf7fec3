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

bool PendingExplanation::operator==(const PendingExplanation& o) const {
  return reason == o.reason && text == o.text && details == o.details;
}

AssignmentReasons Assignment::reasons() const {
  AssignmentReasons out;
  for (const auto& ps : pod_sets) {
    if (!ps.reasons.empty()) out.emplace_back(ps.pod_set, ps.reasons);
  }
  return out;
}

std::string format_amount(const SymbolTable& resources, ResourceId r, std::int64_t milli) {
  const std::string& name = resources.name(r);
  bool binary = name == "memory" || name == "ephemeral-storage" || name.rfind("hugepages-", 0) == 0;
  return format_milli(milli, binary ? Quantity::Format::BinarySI : Quantity::Format::DecimalSI);
}

std::string render(const FitReason& r, const SymbolTable& resources, const SymbolTable& flavors,
                   const std::vector<const ResourceFlavor*>& flavor_specs) {
  const std::string& res = resources.name(r.resource);
  const std::string& flv = flavors.name(r.flavor);
  switch (r.kind) {
    case FitReason::Kind::ResourceUnavailable:
      return "resource " + res + " unavailable in ClusterQueue";
    case FitReason::Kind::FlavorNotFound:
      return "flavor " + flv + " not found";
    case FitReason::Kind::UntoleratedTaint: {
      std::string taint = "?";
      const ResourceFlavor* spec = r.flavor < flavor_specs.size() ? flavor_specs[r.flavor] : nullptr;
      if (spec != nullptr && r.a >= 0 && static_cast<std::size_t>(r.a) < spec->node_taints.size()) {
        taint = spec->node_taints[static_cast<std::size_t>(r.a)].to_string();
      }
      return "untolerated taint {" + taint + "} in flavor " + flv;
    }
    case FitReason::Kind::AffinityMismatch:
      return "flavor " + flv + " doesn't match node affinity";
    case FitReason::Kind::NotNominated:
      return "skipping flavor " + flv + " as it is not found in the nomination mapping for resource " + res;
    case FitReason::Kind::ExceedsMaxQuota:
      return "insufficient quota for " + res + " in flavor " + flv +
             ", previously considered podsets requests (" + format_amount(resources, r.resource, r.a) +
             ") + current podset request (" + format_amount(resources, r.resource, r.b) +
             ") > maximum capacity (" + format_amount(resources, r.resource, r.c) + ")";
    case FitReason::Kind::InsufficientUnused:
      return "insufficient unused quota for " + res + " in flavor " + flv + ", " +
             format_amount(resources, r.resource, r.a) + " more needed";
  }
  return {};
}

std::string render_message(const AssignmentReasons& reasons, const std::vector<std::string>& pod_set_names,
                           const SymbolTable& resources, const SymbolTable& flavors,
                           const std::vector<const ResourceFlavor*>& flavor_specs) {
  std::string out;
  for (const auto& [index, list] : reasons) {
    const std::string name = index < pod_set_names.size() ? pod_set_names[index] : "";
    std::vector<std::string> texts;
    texts.reserve(list.size());
    for (const auto& r : list) texts.push_back(render(r, resources, flavors, flavor_specs));
    std::sort(texts.begin(), texts.end());
    texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
    if (!out.empty()) out += "; ";
    out += "couldn't assign flavors to pod set " + name + ": ";
    for (std::size_t i = 0; i < texts.size(); ++i) {
      if (i > 0) out += ", ";
      out += texts[i];
    }
  }
  return out;
}

int no_fit_reason_severity(std::string_view reason) {
  if (reason == "NoMatchingFlavor") return 4;
  if (reason == "ExceedsMaxQuota") return 3;
  if (reason == "WaitingForQuota") return 2;
  if (reason == "TopologyPlacementFailed") return 1;
  return 0;
}

std::string_view most_severe_reason(std::string_view a, std::string_view b) {
  return no_fit_reason_severity(a) >= no_fit_reason_severity(b) ? a : b;
}

}  // namespace kueuepp::core
