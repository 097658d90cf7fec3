#pragma once

// The order structured-merge-diff puts JSON values in, and their kind names for messages.
// (Equality is json::json_equal, kube/json/json_equal.hpp.)

#include "kube/json/json.hpp"

namespace kueuepp::kube::patch::detail {

/// A total order on JSON values, structured-merge-diff's (value.Compare): numbers <
/// strings < booleans < arrays < objects < null; numbers by value (1 == 1.0 == 1u);
/// arrays lexicographically; objects by sorted keys, then values. Used to sort set
/// elements and list-map keys. Values nested deeper than kMaxDepth compare equal there.
int json_compare(const json::value& a, const json::value& b);

/// Human-readable kind name for messages: "object", "array", "string", ...
const char* kind_name(const json::value& v);

}  // namespace kueuepp::kube::patch::detail
