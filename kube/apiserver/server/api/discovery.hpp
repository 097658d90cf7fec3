#pragma once

// Discovery documents generated from the resource registry: /api, /apis, /apis/<group>,
// each group-version's APIResourceList, and the aggregated discovery format
// (apidiscovery.k8s.io v2 / v2beta1) kubectl asks for first.

#include <string>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/registry/resource_registry.hpp"

namespace kueuepp::kube::server {

/// /api: APIVersions. `server_address` is host:port for serverAddressByClientCIDRs.
json::value core_versions(std::string_view server_address);
/// /apis: APIGroupList.
json::value group_list(const ResourceRegistry& registry);
/// /apis/<group>: APIGroup (null when the group is not served).
json::value group_document(const ResourceRegistry& registry, std::string_view group);
/// /api/v1 or /apis/<group>/<version>: APIResourceList.
json::value resource_list(const ResourceRegistry& registry, std::string_view group, std::string_view version);
/// Aggregated discovery of the core group (`core` true, for /api) or of every other
/// group (for /apis); `api_version` is "apidiscovery.k8s.io/v2" or ".../v2beta1".
json::value aggregated_discovery(const ResourceRegistry& registry, bool core, std::string_view api_version);

}  // namespace kueuepp::kube::server
