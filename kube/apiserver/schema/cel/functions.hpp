#pragma once

// Implementations behind call_builtin, one family per file: conversions.cpp,
// string_functions.cpp, list_functions.cpp, optional_functions.cpp. Arguments are
// evaluated and never errors; the receiver of a method comes first.

#include <span>

#include "kube/apiserver/schema/cel/builtins.hpp"
#include "kube/apiserver/schema/cel/value.hpp"

namespace kueuepp::kube::schema::cel {

Value call_conversion(Builtin fn, std::span<const Value> args);
Value call_string_function(Builtin fn, std::span<const Value> args);
Value call_list_function(Builtin fn, std::span<const Value> args);
Value call_optional_function(Builtin fn, std::span<const Value> args);

/// `s.matches(re)` with a pattern compiled at evaluation time.
Value regex_matches(const Value& text, const Value& pattern);

}  // namespace kueuepp::kube::schema::cel
