#pragma once

// `status.conditions` with Kubernetes' semantics (apimachinery meta.SetStatusCondition):
// conditions are keyed by type; lastTransitionTime changes only when the status
// changes; reason, message and observedGeneration are updated in place; fields of an
// existing entry this code does not know are kept.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::client {

struct Condition {
  std::string type;
  std::string status;  ///< "True", "False" or "Unknown"
  std::string reason;
  std::string message;
  /// Empty when setting: "now" is used if the status changes.
  std::string last_transition_time;
  std::optional<std::int64_t> observed_generation;

  json::value to_json() const;
  static Condition from_json(const json::value& v);
  bool operator==(const Condition&) const = default;
};

/// Reads a conditions array (null or a non-array reads as empty).
std::vector<Condition> read_conditions(const json::value* conditions);
/// The first condition of `type` in a conditions array, read alone: the tree actors ask
/// this of every Workload event, and reading the whole list built every condition's
/// strings only to drop all but one.
const json::value* find_condition(const json::value* conditions, std::string_view type);

/// Sets `condition` in `conditions` (null becomes an array). Returns true when the
/// array changed.
bool set_condition(json::value& conditions, const Condition& condition, std::string_view now);

/// Removes the condition of `type`; true when it was there.
bool remove_condition(json::value& conditions, std::string_view type);

}  // namespace kueuepp::kube::client
