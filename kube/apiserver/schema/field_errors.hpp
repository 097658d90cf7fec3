#pragma once

// FieldError constructors that word causes exactly as k8s.io/apimachinery's field.Error
// does (ErrorBody), including Go's rendering of the bad value: %q for strings, %v for
// numbers and booleans, %#v for objects and arrays, "null" for nil.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/schema/schema.hpp"

namespace kueuepp::kube::schema {

/// Go's strconv.Quote.
std::string go_quote(std::string_view s);
/// Go's %v of a float64.
std::string go_float(double d);
/// How field.Error's ErrorBody prints a JSON value (nullptr prints as "null").
std::string go_value(const json::value* v);

namespace field_errors {

/// Pre-rendered bad values.
inline std::string quoted(std::string_view s) { return go_quote(s); }
inline std::string number(std::int64_t i) { return std::to_string(i); }

FieldError required(std::string field, std::string_view detail = {});
FieldError forbidden(std::string field, std::string_view detail);
FieldError invalid(std::string field, const std::string& value, std::string_view detail);
FieldError type_invalid(std::string field, const std::string& value, std::string_view detail);
FieldError not_supported(std::string field, const std::string& value, const std::vector<std::string>& valid);
FieldError duplicate(std::string field, const std::string& value);
FieldError too_long(std::string field, std::int64_t max);
FieldError too_many(std::string field, std::int64_t actual, std::int64_t max);
FieldError internal(std::string field, std::string_view detail);

}  // namespace field_errors
}  // namespace kueuepp::kube::schema
