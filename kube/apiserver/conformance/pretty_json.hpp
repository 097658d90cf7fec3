#pragma once

// JSON written for people to read and diff: two-space indentation, one member or
// element per line, members in the order they were inserted (recorded traces are
// reviewed and kept in git).

#include <string>

#include "kube/json/json.hpp"

namespace kueuepp::kube::conformance {

std::string dump_pretty(const json::value& v);

}  // namespace kueuepp::kube::conformance
