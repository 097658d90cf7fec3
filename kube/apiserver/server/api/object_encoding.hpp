#pragma once

// How stored objects go out on the wire: in the requested API version, as plain JSON,
// as a meta.k8s.io Table (kubectl get) or as PartialObjectMetadata; and watch event
// lines. The common case (storage version, plain JSON) reuses the serialization the store
// made when the object was written.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/media.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"
#include "kube/apiserver/server/store/stored_object.hpp"

namespace kueuepp::kube::server {

/// Whether `view` presents `object` as stored (its serialization can be sent as is): a
/// custom resource in the version it was stored in, a built-in its strategy does not
/// convert. Otherwise object_value relabels (CRD conversion None) or encodes it; a CRD
/// converted by a webhook is converted before (webhook_conversion.hpp).
bool presented_as_stored(const StoredObject& object, const ResourceType& view);

/// The object as `view` presents it.
json::value object_value(const StoredObject& object, const ResourceType& view);
/// The same as JSON text (the stored serialization when no conversion is needed).
std::string object_json(const StoredObject& object, const ResourceType& view);

/// kubectl get's table of `objects`; `include_object` is the includeObject parameter
/// ("None", "Metadata" (default) or "Object").
json::value make_table(const std::vector<const json::object*>& objects, const ResourceType& view,
                       std::string_view include_object, std::string_view list_rv,
                       std::string_view continue_token = {});
/// meta.k8s.io/v1 PartialObjectMetadata of an object (in `view`'s terms).
json::value partial_metadata(const json::object& object, const ResourceType& view);
/// The same of a stored version (its metadata only is copied, managedFields included).
json::value partial_metadata(const StoredObject& object, const ResourceType& view);

/// One watch event line, `{"type":...,"object":...}\n`, in the given representation.
std::shared_ptr<const std::string> watch_event_line(std::string_view type, const StoredObject& object,
                                                    const ResourceType& view, Representation rep,
                                                    std::string_view include_object = "Metadata");
/// The same of an object already in `view`'s version (converted by a webhook); `rv` is
/// its resourceVersion (for a Table).
std::shared_ptr<const std::string> watch_event_line(std::string_view type, const json::value& presented,
                                                    const ResourceType& view, Representation rep,
                                                    std::string_view include_object, std::uint64_t rv);
/// A BOOKMARK event at `rv` (annotated as the end of initial events when asked).
std::shared_ptr<const std::string> bookmark_line(const ResourceType& view, std::uint64_t rv,
                                                 bool initial_events_end = false);
/// An ERROR event carrying a Status.
std::shared_ptr<const std::string> error_line(const json::value& status);

}  // namespace kueuepp::kube::server
