#pragma once

// metadata.managedFields bookkeeping for ordinary (non-apply) writes, delegated to
// kube/apiserver/patch with the kind's list strategies.

#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"
#include "kube/apiserver/server/store/stored_object.hpp"

namespace kueuepp::kube::server {

/// Records `manager`'s write of `obj` (replacing `old`, null on create) in obj's
/// managedFields. True when they came out exactly as `old` has them
/// (record_update_keeping): obj's metadata.managedFields is then a null stand-in for
/// old's, which the store shares.
bool track_write(json::value& obj, const StoredObject* old, const ResourceType& view, std::string_view manager,
                 bool status_subresource);

}  // namespace kueuepp::kube::server
