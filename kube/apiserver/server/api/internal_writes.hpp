#pragma once

// Writes the server makes itself, without an HTTP request: start-up objects (default
// namespaces, --crds) and the controllers' updates (garbage collector, namespace and
// CRD cleanup). They go through the same commit pipeline as client writes.

#include <string_view>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

/// Creates the object, or updates it when it exists, with the rules a client's POST/PUT
/// would meet (defaults, validation). The error names the object and what failed.
Status upsert_object(ServerContext& ctx, const ResourceType& type, json::value obj, std::string_view manager);

/// Stores a new version of an existing object as a controller's update (no validation:
/// controllers only remove finalizers and owner references). When the object is being
/// deleted and nothing holds it any more, it is removed instead.
void write_back(ServerContext& ctx, const ResourceType& type, const StoredObject& current, json::value next);

}  // namespace kueuepp::kube::server
