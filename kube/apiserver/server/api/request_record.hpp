#pragma once

// The request observer's view of a resource request (ApiRequestRecord): its
// authorization attributes, worked out as kube-apiserver's RequestInfoFactory works them
// out for RBAC, and a Responder wrapper that reports the request once its answer is
// known.

#include <functional>

#include "kube/apiserver/server/api/request_info.hpp"
#include "kube/apiserver/server/api_server.hpp"
#include "kube/apiserver/server/http/http_types.hpp"

namespace kueuepp::kube::server {

using RequestObserver = std::function<void(const ApiRequestRecord&)>;

/// The record of a resource request (status still 0): the verb from the method and the
/// URL (a GET of a collection lists, or watches with ?watch or the /watch/ path; a
/// DELETE of a collection is deletecollection; a named GET with ?watch watches, as this
/// server serves it), the group, version, resource, subresource, namespace and name.
ApiRequestRecord request_record(const HttpRequest& request, const RequestInfo& info, const Query& query);

/// `responder`, reporting `record` with the answer's status to `observer` just before the
/// answer (or a stream's headers) goes out. Each request is reported once.
ResponderPtr observed_responder(ResponderPtr responder, ApiRequestRecord record, RequestObserver observer);

}  // namespace kueuepp::kube::server
