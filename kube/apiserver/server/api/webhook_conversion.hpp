#pragma once

// Custom resources presented in a version they are not stored in, when their CRD
// converts through a webhook (strategy None only relabels, which object_encoding does in
// place): the stored objects are converted on the way out, asynchronously, and the
// request or watch is answered once the webhook has. A conversion that fails fails the
// request as kube-apiserver's does: 500 with the converter's message.

#include <functional>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"
#include "kube/apiserver/server/store/stored_object.hpp"

namespace kueuepp::kube::server {

/// Whether presenting `object` in `view` takes a call of the CRD's conversion webhook.
bool needs_webhook_conversion(const StoredObject& object, const ResourceType& view);

/// The error a failed conversion answers with (what kube-apiserver makes of an error
/// that is not a Status: 500, no reason, the message as is).
ApiError conversion_failed(std::string message);

using ConvertedObjects = std::function<void(ApiResult<std::vector<json::value>>)>;

/// `objects` as `view` presents them (each object's document in view's version), in one
/// webhook call for all those that need one. `done` runs exactly once, on the store thread.
void convert_for_view(const std::vector<ObjectPtr>& objects, const ResourceType& view, ConvertedObjects done);

// -- writes through a version objects are not stored in -----------------------------
// As in kube-apiserver, such a write works on the object in the request's version: the
// stored object is converted to it first (defaults, admission, validation and the no-op
// check all see that version), and the result is converted to the storage version by the
// webhook just before it is stored.

/// `old` as a write through `view` sees it (a converted copy when it is stored in another
/// version and the webhook converts; `old` itself otherwise). `done` runs exactly once.
void old_for_view(const ObjectPtr& old, const ResourceType& view, std::function<void(ApiResult<ObjectPtr>)> done);

/// Whether `obj` (a write's result) must go through the webhook before it is stored.
bool needs_storage_conversion(const json::value& obj, const ResourceType& view);
/// `obj` converted to the storage version.
void convert_for_storage(json::value obj, const ResourceType& view, std::function<void(ApiResult<json::value>)> done);

}  // namespace kueuepp::kube::server
