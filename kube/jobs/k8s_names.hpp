#pragma once

// The Kubernetes name rules Kueue's job webhook and reconciler check
// (k8s.io/apimachinery/pkg/util/validation).

#include <string_view>

namespace kueuepp::kube::jobs {

/// IsDNS1123Subdomain: at most 253 characters of [a-z0-9-.], each dot-separated part
/// starting and ending with an alphanumeric (queue names, priority class names).
bool is_dns1123_subdomain(std::string_view value);

/// IsDNS1123Label: at most 63 characters of [a-z0-9-], starting and ending alphanumeric
/// (the cluster-queue-name pod label is set only when the name is one).
bool is_dns1123_label(std::string_view value);

/// IsValidLabelValue: empty, or at most 63 characters of [A-Za-z0-9-_.] starting and
/// ending alphanumeric (the job-uid label is set only when the uid is one).
bool is_valid_label_value(std::string_view value);

}  // namespace kueuepp::kube::jobs
