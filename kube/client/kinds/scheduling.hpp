#pragma once

// Pod scheduling directives shared by several kinds: tolerations (Job pod templates,
// ResourceFlavor) and taints (ResourceFlavor.nodeTaints).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::client {

struct Toleration {
  std::string key;
  std::string operator_;  ///< Exists or Equal ("" means Equal)
  std::string value;
  std::string effect;     ///< NoSchedule, PreferNoSchedule, NoExecute or ""
  std::optional<std::int64_t> toleration_seconds;

  json::value to_json() const;
  static Toleration from_json(const json::value& v);
  bool operator==(const Toleration&) const = default;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;

  json::value to_json() const;
  static Taint from_json(const json::value& v);
  bool operator==(const Taint&) const = default;
};

std::vector<Toleration> read_tolerations(const json::value* list);
json::value tolerations_to_json(const std::vector<Toleration>& tolerations);

}  // namespace kueuepp::kube::client
