#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/labels.hpp"
#include "core/model/scheduling.hpp"

namespace kueuepp::core {

/// kueue.x-k8s.io ResourceFlavor: a kind of node, by labels and taints.
struct ResourceFlavor {
  std::string name;
  Labels node_labels;
  std::vector<Taint> node_taints;
  std::vector<Toleration> tolerations;
  std::optional<std::string> topology_name;
};

}  // namespace kueuepp::core
