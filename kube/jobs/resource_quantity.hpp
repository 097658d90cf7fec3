#pragma once

// Quantities as Kueue prints them in status (resources.ResourceFormatter): cpu in
// milli-units (DecimalSI, "1500m", "2"); memory, ephemeral-storage and hugepages-* as
// whole bytes in BinarySI ("1Gi", "1000000000"); every other resource as whole units in
// DecimalSI ("4", "1k"). Kueue keeps non-cpu amounts as whole units, rounding up.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/resources.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// `milli` milli-units of resource `name`, in canonical text.
std::string resource_quantity(std::string_view name, std::int64_t milli);

/// A resource list as a JSON object of canonical quantity strings (key order: by name).
json::object resource_list_json(const core::ResourceList& list);

}  // namespace kueuepp::kube::jobs
