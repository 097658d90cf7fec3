#pragma once

// The runtime error values CEL (cel-go) produces, with its exact wording: kube-apiserver
// puts these texts in validation messages (`no such key: foo evaluating rule: ...`) and
// recognizes `no such overload` and the cost-limit text by prefix.

#include <cstdint>
#include <string>
#include <string_view>

#include "kube/apiserver/schema/cel/value.hpp"

namespace kueuepp::kube::schema::cel {

inline constexpr std::string_view kCostLimitExceeded = "operation cancelled: actual cost limit exceeded";

inline Value no_such_overload() { return Value::static_error("no such overload"); }
inline Value integer_overflow() { return Value::static_error("integer overflow"); }
inline Value unsigned_overflow() { return Value::static_error("unsigned integer overflow"); }
inline Value division_by_zero() { return Value::static_error("division by zero"); }
inline Value modulus_by_zero() { return Value::static_error("modulus by zero"); }
inline Value cost_limit_exceeded() { return Value::static_error(kCostLimitExceeded); }

inline Value no_such_key(std::string_view key) { return Value::error("no such key: " + std::string(key)); }

inline Value index_out_of_range(std::int64_t index, std::size_t size) {
  return Value::error("index '" + std::to_string(index) + "' out of range in list size '" +
                      std::to_string(size) + "'");
}

}  // namespace kueuepp::kube::schema::cel
