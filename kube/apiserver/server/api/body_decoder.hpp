#pragma once

// Request bodies of creates and updates: JSON or YAML by Content-Type, checked against
// the endpoint's kind and version the way kube-apiserver's decoder checks them, and
// handed to the kind's strategy for conversion to the storage form.

#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/resource_request.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

/// Parses a body as JSON or YAML per `content_type` (empty: JSON). 415 for other media
/// types, 400 when malformed or not a single object. `kind` names the expected kind in
/// messages.
ApiResult<json::value> parse_body(std::string_view content_type, std::string_view body, std::string_view kind);

/// The apiVersion/kind check: absent ones are filled in from the endpoint; a body of
/// another kind or group is a 400 ("... cannot be handled as a ...").
ApiStatus check_type_meta(json::object& obj, const ResourceType& view);

/// parse_body + check_type_meta + the strategy's decode, for creates and updates.
ApiResult<json::value> decode_request_object(const ResourceRequest& r, const WriteContext& w);

/// Parses the fieldValidation parameter (400 for unknown values).
ApiResult<FieldValidation> field_validation_of(const Query& query);

}  // namespace kueuepp::kube::server
