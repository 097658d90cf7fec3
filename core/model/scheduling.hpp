#pragma once

// The parts of a pod spec that decide which ResourceFlavors a pod set may use: node
// selector, required node affinity, tolerations; and the flavor side: node labels and
// taints. Matching follows kube-scheduler's NodeAffinity and TaintToleration filters
// against a "fake node" carrying the flavor's labels, as Kueue does.

#include <optional>
#include <string>
#include <vector>

#include "core/model/labels.hpp"

namespace kueuepp::core {

enum class TaintEffect { NoSchedule, PreferNoSchedule, NoExecute };

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::NoSchedule;

  /// "key=value:Effect" (or "key:Effect"), as kubectl prints taints.
  std::string to_string() const;
};

struct Toleration {
  enum class Op { Equal, Exists };
  std::string key;
  Op op = Op::Equal;
  std::string value;
  std::optional<TaintEffect> effect;  ///< unset tolerates every effect

  bool tolerates(const Taint& taint) const;
};

struct NodeSelectorRequirement {
  enum class Op { In, NotIn, Exists, DoesNotExist, Gt, Lt };
  std::string key;
  Op op = Op::In;
  std::vector<std::string> values;

  bool matches(const Labels& node_labels) const;
};

/// Requirements are ANDed.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
};

/// What a pod set asks of a node.
struct PodPlacement {
  Labels node_selector;
  /// requiredDuringSchedulingIgnoredDuringExecution terms, ORed. Unset: no affinity.
  std::optional<std::vector<NodeSelectorTerm>> required_affinity;
  std::vector<Toleration> tolerations;

  bool operator==(const PodPlacement&) const = default;
};

/// Whether a pod set may use a flavor with these node labels: the pod's node selector
/// and affinity restricted to the keys the flavor itself labels (a term left empty by
/// that restriction matches any flavor).
bool placement_matches_flavor_labels(const PodPlacement& pod, const Labels& flavor_labels);

/// The first NoSchedule/NoExecute taint that neither the pod's nor the flavor's
/// tolerations tolerate; nullptr when all are tolerated.
const Taint* first_untolerated_taint(const std::vector<Taint>& taints,
                                     const std::vector<Toleration>& pod_tolerations,
                                     const std::vector<Toleration>& flavor_tolerations);

bool operator==(const Toleration& a, const Toleration& b);
bool operator==(const NodeSelectorRequirement& a, const NodeSelectorRequirement& b);
bool operator==(const NodeSelectorTerm& a, const NodeSelectorTerm& b);

}  // namespace kueuepp::core
