#pragma once

// Resource groups and quotas, shared by ClusterQueue and Cohort specs.

#include <optional>
#include <string>
#include <vector>

#include "core/quantity.hpp"

namespace kueuepp::core {

struct ResourceQuota {
  std::string name;  ///< resource name
  Quantity nominal;
  std::optional<Quantity> borrowing_limit;
  std::optional<Quantity> lending_limit;
  bool operator==(const ResourceQuota&) const = default;
};

struct FlavorQuotas {
  std::string name;  ///< flavor name
  std::vector<ResourceQuota> resources;
  bool operator==(const FlavorQuotas&) const = default;
};

struct ResourceGroup {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotas> flavors;
  bool operator==(const ResourceGroup&) const = default;
};

}  // namespace kueuepp::core
