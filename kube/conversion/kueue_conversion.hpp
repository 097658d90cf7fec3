#pragma once

// Converting one Kueue object between kueue.x-k8s.io/v1beta1 and v1beta2: Kueue's field
// mapping (kueue_field_mapping.hpp) plus the stash (conversion_stash.hpp) that gives
// back exactly the object a round trip started from. What the conversion webhook does
// for each object of a ConversionReview.

#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conversion {

inline constexpr std::string_view kKueueGroup = "kueue.x-k8s.io";
inline constexpr std::string_view kKueueV1beta1 = "kueue.x-k8s.io/v1beta1";
inline constexpr std::string_view kKueueV1beta2 = "kueue.x-k8s.io/v1beta2";

/// `object` in `desired_api_version`; an object already there comes back unchanged. The
/// error names the object (kind, namespace/name) and what is wrong with it: not an
/// object, a version or kind that is not converted, a field of the wrong type.
Expected<json::value> convert_kueue_object(const json::value& object, std::string_view desired_api_version);

/// `Workload "team-a/job-1"`, `ClusterQueue "cq"`: how errors name an object.
std::string describe_object(const json::value& object);

}  // namespace kueuepp::kube::conversion
