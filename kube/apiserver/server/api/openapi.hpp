#pragma once

// The OpenAPI documents kubectl reads: /openapi/v3 (an index of group-versions) and
// /openapi/v3/<api|apis/group>/<version> with every resource's operations. kubectl uses
// them to learn that the server validates fields itself (the fieldValidation parameter
// of PATCH), so `kubectl apply`/`create` send fieldValidation=Strict instead of
// validating client-side, and `kubectl explain` reads custom resource schemas from them.
// Built-in kinds carry no schema: kubectl falls back to its compiled-in types for their
// strategic merge patches.

#include <cstdint>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/registry/resource_registry.hpp"

namespace kueuepp::kube::server {

/// /openapi/v3: {"paths": {"apis/batch/v1": {"serverRelativeURL": ...}}}.
json::value openapi_v3_index(const ResourceRegistry& registry);
/// /openapi/v3/<path> ("api/v1", "apis/batch/v1"); null when not served.
json::value openapi_v3_document(const ResourceRegistry& registry, std::string_view path);
/// /openapi/v2 as JSON: an empty Swagger 2.0 document. kubectl (1.27+) only needs it to
/// exist: it reads operations and schemas from /openapi/v3.
json::value openapi_v2_document(const ResourceRegistry& registry);
/// The same as protobuf (gnostic openapi_v2.Document), the form kubectl asks for
/// (application/com.github.proto-openapi.spec.v2@v1.0+protobuf).
std::string openapi_v2_protobuf();

}  // namespace kueuepp::kube::server
