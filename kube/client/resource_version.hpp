#pragma once

// Ordering resourceVersions. Kubernetes calls them opaque strings, to be compared for
// equality only; but a cache fed from two sources (its watch, and the answers to its
// own writes and reads) must not let an older version replace a newer one, and every
// API server in use numbers them with integers that grow with each write (etcd's
// revision; the embedded server's counter). Where either is not such an integer, no
// order is claimed.

#include <compare>
#include <optional>
#include <string_view>

namespace kueuepp::kube::client {

/// The order of two resourceVersions, or nullopt when either is not a decimal integer.
std::optional<std::strong_ordering> compare_resource_versions(std::string_view a, std::string_view b);

/// Whether `candidate` is known to be older than `known` (false when no order is known).
bool older_resource_version(std::string_view candidate, std::string_view known);

}  // namespace kueuepp::kube::client
