#pragma once

// JSON value equality and ordering as Kubernetes sees them: numbers compare by value
// whatever their representation (1 == 1.0 == 1u), objects ignore member order.

#include "kube/json/json.hpp"

namespace kueuepp::kube::patch::detail {

/// Deep equality. Documents nested deeper than kMaxDepth compare unequal.
bool json_equal(const json::value& a, const json::value& b);

/// A total order on JSON values, structured-merge-diff's (value.Compare): numbers <
/// strings < booleans < arrays < objects < null; arrays lexicographically; objects by
/// sorted keys, then values. Used to sort set elements and list-map keys.
int json_compare(const json::value& a, const json::value& b);

/// Human-readable kind name for messages: "object", "array", "string", ...
const char* kind_name(const json::value& v);

}  // namespace kueuepp::kube::patch::detail
