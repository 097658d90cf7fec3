#pragma once

// Field errors: the causes of a 422 Invalid answer, worded as kube-apiserver words them
// (k8s.io/apimachinery/pkg/util/validation/field). Strategies collect them; the request
// handlers turn a non-empty list into a Status.

#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

struct FieldError {
  std::string type;     ///< metav1.CauseType, e.g. "FieldValueInvalid"
  std::string field;    ///< "spec.parallelism", "metadata.labels[x]", "<nil>"
  std::string message;  ///< without the field: "Invalid value: -1: must be ..."
};
using FieldErrors = std::vector<FieldError>;

/// How a value is quoted in messages: strings in double quotes, the rest as JSON.
std::string describe_value(const json::value& v);

FieldError required_error(std::string field, std::string_view detail = {});
FieldError invalid_error(std::string field, const json::value& value, std::string_view detail);
FieldError not_supported_error(std::string field, const json::value& value,
                               const std::vector<std::string_view>& supported);
FieldError forbidden_error(std::string field, std::string_view detail);
FieldError duplicate_error(std::string field, const json::value& value);
FieldError too_long_error(std::string field, std::size_t max);

/// "field: message" as the Status message lists each cause.
std::string to_string(const FieldError& e);

}  // namespace kueuepp::kube::server
