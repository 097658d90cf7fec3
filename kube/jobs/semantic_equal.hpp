#pragma once

// Equality of two JSON documents as Kubernetes' equality.Semantic.DeepEqual sees the typed
// objects they decode to: a missing field equals its zero value (null, false, 0, "", [],
// {}), numbers compare by value, and resource quantities compare by amount ("1" equals
// "1000m") wherever a quantity is expected (requests, limits, overhead, resourceUsage,
// total, borrowed). Kueue compares pod templates and statuses this way; a byte-wise
// comparison would see changes where the API server merely spelled a value differently.
// A looser relation than json::json_equal (kube/json/json_equal.hpp), whose number
// equality it shares.

#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

bool semantically_equal(const json::value& a, const json::value& b);

/// Either side may be absent (nullptr), which equals a zero value.
bool semantically_equal(const json::value* a, const json::value* b);

}  // namespace kueuepp::kube::jobs
