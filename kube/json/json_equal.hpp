#pragma once

// JSON equality as Kubernetes sees decoded documents, the one structural comparison in
// kueuepp: numbers compare by value whatever their representation (1 == 1u == 1.0),
// objects ignore member order, arrays compare in order. Used by the API server's patch
// and schema libraries, the conformance replayer, and kube/jobs' semantic equality.
// (json::equal in json.hpp is Boost.JSON's operator==, where 1 and 1.0 differ.)

#include "kube/json/json.hpp"

namespace kueuepp::json {

/// Documents nested deeper than this compare unequal (no unbounded recursion).
inline constexpr int kMaxEqualDepth = 1000;

/// Deep equality, numbers by value. Values nested deeper than kMaxEqualDepth compare
/// unequal.
bool json_equal(const value& a, const value& b);

/// Whether two numbers (int64, uint64 or double) have the same value. An int64 and a
/// uint64 compare exactly; a double is involved only when one side is a double.
bool numbers_equal(const value& a, const value& b);

/// Three-way comparison of two numbers by value (-1, 0, 1), exact like numbers_equal.
int compare_numbers(const value& a, const value& b);

}  // namespace kueuepp::json
