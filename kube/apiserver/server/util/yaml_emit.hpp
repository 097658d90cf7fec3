#pragma once

// JSON values as YAML text, for clients that Accept application/yaml.

#include <string>

#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

std::string to_yaml(const json::value& v);

}  // namespace kueuepp::kube::server
