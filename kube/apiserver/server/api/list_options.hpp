#pragma once

// The query parameters that select what a list or watch returns (label and field
// selectors, namespace) and at which resourceVersion (resourceVersion,
// resourceVersionMatch, limit, continue), checked as kube-apiserver checks them.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/resource_request.hpp"
#include "kube/apiserver/server/watch/watch_hub.hpp"

namespace kueuepp::kube::server {

/// Builds the object filter of a list/watch: namespace from the URL, label and field
/// selectors from the query (400 for bad syntax or unknown fields).
ApiResult<ObjectFilter> filter_of(const ResourceRequest& r);

/// 400 with Go's strconv.ParseInt error for the first of `keys` whose value in the query
/// is not a 64-bit integer (kube-apiserver decodes integer options that way).
ApiStatus check_integer_params(const Query& query, std::initializer_list<std::string_view> keys);

/// Parses a resourceVersion parameter ("" -> nullopt; 400 when not a number).
ApiResult<std::optional<std::uint64_t>> parse_resource_version(std::string_view text);

/// The store key prefix a filter narrows a scan to ("ns/" or "").
std::string scan_prefix(const ResourceType& type, const ObjectFilter& filter);

}  // namespace kueuepp::kube::server
