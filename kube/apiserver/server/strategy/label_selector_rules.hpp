#pragma once

// A metav1.LabelSelector object ({matchLabels, matchExpressions}) as the kinds that
// select pods use it (Deployment, PodDisruptionBudget): kube-apiserver's validation
// (ValidateLabelSelector) and matching against a set of labels.

#include <string>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/field_error.hpp"

namespace kueuepp::kube::server {

/// The selector's problems, under `path` ("spec.selector"): label keys and values,
/// expression operators and their values. A null or absent selector has none.
FieldErrors validate_label_selector(const json::value* selector, const std::string& path);

/// Whether the selector has no requirement at all (it then selects everything).
bool label_selector_empty(const json::value& selector);

/// Whether `labels` (an object of strings, or null) satisfy every requirement of
/// `selector`. A malformed selector matches nothing.
bool label_selector_matches(const json::value& selector, const json::value* labels);

}  // namespace kueuepp::kube::server
