#pragma once

// IntOrString fields that hold a count or a percentage (a Deployment's maxSurge and
// maxUnavailable, a PodDisruptionBudget's minAvailable and maxUnavailable), validated
// as kube-apiserver validates them (ValidatePositiveIntOrPercent, IsNotMoreThan100Percent).

#include <cstdint>
#include <optional>
#include <string>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/field_error.hpp"

namespace kueuepp::kube::server {

/// The problems of `v` at `path`: a negative integer, a string that is not "<digits>%",
/// another JSON type; with `at_most_100_percent`, a percentage above 100%.
FieldErrors validate_int_or_percent(const json::value& v, const std::string& path, bool at_most_100_percent);

/// The number of a valid value: the integer, or the percentage without '%'. nullopt when
/// it is not valid.
std::optional<std::int64_t> int_or_percent_value(const json::value& v);

}  // namespace kueuepp::kube::server
