#pragma once

// metadata.managedFields bookkeeping for ordinary (non-apply) writes, delegated to
// kube/patch with the kind's list strategies.

#include <string_view>

#include "kube/json/json.hpp"
#include "kube/server/registry/resource_type.hpp"

namespace kueuepp::kube::server {

/// Records `manager`'s write of `obj` (from `old`, null on create) in obj's managedFields.
/// True when they came out exactly as `old` has them (record_update_keeping).
bool track_write(json::value& obj, const json::value* old, const ResourceType& view, std::string_view manager,
                 bool status_subresource);

}  // namespace kueuepp::kube::server
