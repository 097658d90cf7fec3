#include "kube/apiserver/server/api/field_error.hpp"

#include <fmt/format.h>

namespace kueuepp::kube::server {

std::string describe_value(const json::value& v) {
  if (const auto* s = v.if_string()) return fmt::format("\"{}\"", std::string_view(*s));
  return json::dump(v);
}

FieldError required_error(std::string field, std::string_view detail) {
  std::string message = "Required value";
  if (!detail.empty()) message += fmt::format(": {}", detail);
  return {"FieldValueRequired", std::move(field), std::move(message)};
}

FieldError invalid_error(std::string field, const json::value& value, std::string_view detail) {
  std::string message = fmt::format("Invalid value: {}", describe_value(value));
  if (!detail.empty()) message += fmt::format(": {}", detail);
  return {"FieldValueInvalid", std::move(field), std::move(message)};
}

FieldError not_supported_error(std::string field, const json::value& value,
                               const std::vector<std::string_view>& supported) {
  std::string list;
  for (std::string_view s : supported) {
    if (!list.empty()) list += ", ";
    list += fmt::format("\"{}\"", s);
  }
  return {"FieldValueNotSupported", std::move(field),
          fmt::format("Unsupported value: {}: supported values: {}", describe_value(value), list)};
}

FieldError forbidden_error(std::string field, std::string_view detail) {
  return {"FieldValueForbidden", std::move(field), fmt::format("Forbidden: {}", detail)};
}

FieldError duplicate_error(std::string field, const json::value& value) {
  return {"FieldValueDuplicate", std::move(field),
          fmt::format("Duplicate value: {}", describe_value(value))};
}

FieldError too_long_error(std::string field, std::size_t max) {
  return {"FieldValueTooLong", std::move(field),
          fmt::format("Too long: must have at most {} bytes", max)};
}

std::string to_string(const FieldError& e) { return fmt::format("{}: {}", e.field, e.message); }

}  // namespace kueuepp::kube::server
