#pragma once

// Building RFC 6902 JSON patches against an object under review: the mutating webhooks
// say what they change as operations, never as a whole new object.

#include <string_view>

#include "kube/json/json.hpp"

namespace kueuepp::kube::webhook {

/// A JSON pointer token: "~" as "~0", "/" as "~1" (label keys hold slashes).
std::string escape_pointer_token(std::string_view token);

/// Sets metadata.<map>[key] = value on `object` and records the operations: the map is
/// added whole when missing, the key added or replaced otherwise. `map` is "labels" or
/// "annotations".
void set_metadata_entry(json::value& object, std::string_view map, std::string_view key, std::string_view value,
                        json::array& patch);

/// Appends `finalizer` to metadata.finalizers when absent, recording the operation.
void add_finalizer(json::value& object, std::string_view finalizer, json::array& patch);

}  // namespace kueuepp::kube::webhook
