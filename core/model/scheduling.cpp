#include "core/model/scheduling.hpp"

#include <algorithm>
#include <charconv>

namespace kueuepp::core {
namespace {

const char* effect_name(TaintEffect e) {
  switch (e) {
    case TaintEffect::NoSchedule: return "NoSchedule";
    case TaintEffect::PreferNoSchedule: return "PreferNoSchedule";
    case TaintEffect::NoExecute: return "NoExecute";
  }
  return "";
}

bool parse_int64(const std::string& s, std::int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::string Taint::to_string() const {
  std::string out = key;
  if (!value.empty()) out += "=" + value;
  out += ":";
  out += effect_name(effect);
  return out;
}

bool Toleration::tolerates(const Taint& taint) const {
  if (effect.has_value() && *effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  switch (op) {
    case Op::Exists: return true;
    case Op::Equal: return value == taint.value;
  }
  return false;
}

bool NodeSelectorRequirement::matches(const Labels& labels) const {
  auto it = labels.find(key);
  bool has = it != labels.end();
  switch (op) {
    case Op::In:
      return has && std::find(values.begin(), values.end(), it->second) != values.end();
    case Op::NotIn:
      return !has || std::find(values.begin(), values.end(), it->second) == values.end();
    case Op::Exists:
      return has;
    case Op::DoesNotExist:
      return !has;
    case Op::Gt:
    case Op::Lt: {
      if (!has || values.size() != 1) return false;
      std::int64_t label_value = 0;
      std::int64_t bound = 0;
      if (!parse_int64(it->second, label_value) || !parse_int64(values[0], bound)) return false;
      return op == Op::Gt ? label_value > bound : label_value < bound;
    }
  }
  return false;
}

bool placement_matches_flavor_labels(const PodPlacement& pod, const Labels& flavor_labels) {
  for (const auto& [k, v] : pod.node_selector) {
    if (!flavor_labels.contains(k)) continue;  // keys the flavor does not label are ignored
    if (flavor_labels.find(k)->second != v) return false;
  }
  if (!pod.required_affinity.has_value() || pod.required_affinity->empty()) return true;
  // Terms are ORed; each keeps only requirements on keys the flavor labels. A term that
  // becomes empty matches every flavor, which makes the whole affinity match.
  bool any_term_matches = false;
  for (const auto& term : *pod.required_affinity) {
    bool kept_any = false;
    bool all_match = true;
    for (const auto& req : term.match_expressions) {
      if (!flavor_labels.contains(req.key)) continue;
      kept_any = true;
      if (!req.matches(flavor_labels)) all_match = false;
    }
    if (!kept_any) return true;
    if (all_match) any_term_matches = true;
  }
  return any_term_matches;
}

const Taint* first_untolerated_taint(const std::vector<Taint>& taints,
                                     const std::vector<Toleration>& pod_tolerations,
                                     const std::vector<Toleration>& flavor_tolerations) {
  for (const auto& taint : taints) {
    if (taint.effect == TaintEffect::PreferNoSchedule) continue;
    auto tolerated = [&](const Toleration& t) { return t.tolerates(taint); };
    if (std::any_of(pod_tolerations.begin(), pod_tolerations.end(), tolerated)) continue;
    if (std::any_of(flavor_tolerations.begin(), flavor_tolerations.end(), tolerated)) continue;
    return &taint;
  }
  return nullptr;
}

bool operator==(const Toleration& a, const Toleration& b) {
  return a.key == b.key && a.op == b.op && a.value == b.value && a.effect == b.effect;
}
bool operator==(const NodeSelectorRequirement& a, const NodeSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}
bool operator==(const NodeSelectorTerm& a, const NodeSelectorTerm& b) {
  return a.match_expressions == b.match_expressions;
}

}  // namespace kueuepp::core
