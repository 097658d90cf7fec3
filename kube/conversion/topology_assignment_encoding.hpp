#pragma once

// A Workload's topology assignment in its two encodings: v1beta1 lists every domain
// ({levels, domains: [{values, count}]}); v1beta2 packs them into slices whose values per
// level are one universal value or roots between a common prefix and suffix, and whose
// pod counts are one universal count or one per domain. Encoding follows Kueue's
// single-slice encoding; decoding reads any number of slices.

#include <string>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conversion {

/// v1beta1 -> v1beta2. `where` names the field for errors ("status.admission...").
Expected<json::object> encode_topology_slices(const json::object& v1beta1_assignment, const std::string& where);

/// v1beta2 -> v1beta1.
Expected<json::object> decode_topology_slices(const json::object& v1beta2_assignment, const std::string& where);

}  // namespace kueuepp::kube::conversion
