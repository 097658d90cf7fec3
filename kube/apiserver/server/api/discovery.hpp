#pragma once

// Discovery documents generated from the resource registry: /api, /apis, /apis/<group>,
// each group-version's APIResourceList, and the aggregated discovery format
// (apidiscovery.k8s.io v2 / v2beta1) kubectl asks for first.

#include <span>
#include <string>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/aggregated_apis.hpp"
#include "kube/apiserver/server/registry/resource_registry.hpp"

namespace kueuepp::kube::server {

/// /api: APIVersions. `server_address` is host:port for serverAddressByClientCIDRs.
json::value core_versions(std::string_view server_address);
/// /apis: APIGroupList: the registry's groups, then the groups of `remote` (aggregated
/// API servers; a version of a group served here joins that group).
json::value group_list(const ResourceRegistry& registry, std::span<const RemoteGroupVersion> remote = {});
/// /apis/<group>: APIGroup (null when the group is not served).
json::value group_document(const ResourceRegistry& registry, std::string_view group,
                           std::span<const RemoteGroupVersion> remote = {});
/// /api/v1 or /apis/<group>/<version>: APIResourceList.
json::value resource_list(const ResourceRegistry& registry, std::string_view group, std::string_view version);
/// Aggregated discovery of the core group (`core` true, for /api) or of every other
/// group (for /apis); `api_version` is "apidiscovery.k8s.io/v2" or ".../v2beta1".
/// The groups of `remote` follow, their resources as their servers listed them (freshness
/// Stale when the server is not available now).
json::value aggregated_discovery(const ResourceRegistry& registry, bool core, std::string_view api_version,
                                 std::span<const RemoteGroupVersion> remote = {});

}  // namespace kueuepp::kube::server
