#pragma once

// Name and label syntax checks of k8s.io/apimachinery/pkg/util/validation. Each returns
// the problems as messages (empty: valid), worded as kube-apiserver words them.

#include <string>
#include <string_view>
#include <vector>

namespace kueuepp::kube::server {

using Problems = std::vector<std::string>;

/// RFC 1123 label: at most 63 lowercase alphanumerics or '-', alphanumeric at both ends.
Problems dns1123_label_problems(std::string_view s);
/// RFC 1035 label: at most 63 lowercase alphanumerics or '-', a letter first and an
/// alphanumeric last (API versions).
Problems dns1035_label_problems(std::string_view s);
/// RFC 1123 subdomain: dot-separated labels, at most 253 characters.
Problems dns1123_subdomain_problems(std::string_view s);
/// Label/annotation keys and finalizer names: [prefix/]name, name at most 63 characters.
Problems qualified_name_problems(std::string_view s);
/// Label values: empty, or at most 63 alphanumerics, '-', '_' or '.', alphanumeric ends.
Problems label_value_problems(std::string_view s);
/// A path segment name (what names must be at least): not "." / "..", no '/' or '%'.
Problems path_segment_problems(std::string_view s);
/// A ConfigMap or Secret data key (IsConfigMapKey): [-._a-zA-Z0-9]+, at most 253
/// characters, not "." or ".." nor starting with "..".
Problems config_key_problems(std::string_view s);

}  // namespace kueuepp::kube::server
