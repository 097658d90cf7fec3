#pragma once

// Kueue's own mapping between kueue.x-k8s.io/v1beta1 and v1beta2, field by field, as its
// conversion functions (apis/kueue/v1beta1/*_conversion.go) apply it: lossy where one
// version cannot say what the other does (those fields are dropped here, and the stash
// of conversion_stash.hpp keeps them). Fields neither version knows pass through.
// Works in place on a copy of the object; apiVersion is the caller's business.

#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conversion {

/// The Kueue kinds kueuepp serves in both versions.
bool is_converted_kind(std::string_view kind);

/// The error names the field at fault (".spec.cohort is 3, want a string"); the caller
/// says which object.
Status map_to_v1beta2(json::object& object, std::string_view kind);
Status map_to_v1beta1(json::object& object, std::string_view kind);

}  // namespace kueuepp::kube::conversion
