#pragma once

// Kueue's visibility API (visibility.kueue.x-k8s.io, v1beta2 and v1beta1) on the wire:
// which document a request path names, the limit and offset of a page, and the JSON
// answers (PendingWorkloadsSummary, discovery documents, meta/v1 Status errors) in the
// shapes Kueue's aggregated API server gives them (apis/visibility, pkg/visibility).
// Pure: no I/O.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/pending_page.hpp"
#include "core/expected.hpp"

namespace kueuepp::kube::visibility {

inline constexpr std::string_view kGroup = "visibility.kueue.x-k8s.io";

enum class RouteKind : std::uint8_t {
  GroupList,            ///< /apis
  Group,                ///< /apis/visibility.kueue.x-k8s.io
  ResourceList,         ///< /apis/visibility.kueue.x-k8s.io/{version}
  ClusterQueuePending,  ///< .../clusterqueues/{name}/pendingworkloads
  LocalQueuePending,    ///< .../namespaces/{ns}/localqueues/{name}/pendingworkloads
  LocalQueueWhatIf,     ///< POST .../namespaces/{ns}/localqueues/{name}/whatif (what_if_api.hpp)
  Health,               ///< /healthz, /readyz, /livez
  Unknown,
};

struct Route {
  RouteKind kind = RouteKind::Unknown;
  std::string version;  ///< v1beta2 or v1beta1
  std::string ns;
  std::string name;
};

/// The route of a request path (without its query).
Route route_of(std::string_view path);

/// limit and offset of a query string ("limit=1&offset=2"), defaulted as Kueue's
/// PendingWorkloadOptions (limit 0 or absent: 1000) and bounded (core::bounded_page).
/// A value that is not an integer is an error with the API server's words.
Expected<core::PageBounds> parse_page_query(std::string_view query);

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
};

/// One item of a PendingWorkloadsSummary.
struct PendingWorkloadItem {
  std::string name;
  std::string ns;
  std::vector<OwnerReference> owner_references;
  std::string creation_timestamp;  ///< RFC 3339, as stored
  std::int32_t priority = 0;
  std::string local_queue;
  std::int32_t position_in_cluster_queue = 0;
  std::int32_t position_in_local_queue = 0;
};

std::string encode_summary(std::string_view version, const std::vector<PendingWorkloadItem>& items);
std::string encode_group_list();
std::string encode_group();
std::string encode_resource_list(std::string_view version);

/// meta/v1 Status bodies, as k8s.io/apimachinery's errors package words them.
/// `resource` is Kueue's: "clusterqueue" or "localqueue" (singular, as its storage names it).
std::string status_not_found(std::string_view resource, std::string_view name);
std::string status_bad_request(std::string_view message);
std::string status_unauthorized();
/// The 403 of an authorizer's denial: `resource` plural (clusterqueues, localqueues).
std::string status_forbidden(std::string_view user, std::string_view verb, std::string_view resource,
                             std::string_view subresource, std::string_view name, std::string_view ns,
                             std::string_view reason);
std::string status_internal(std::string_view message);
std::string status_unavailable(std::string_view message);
std::string status_timeout(std::string_view message);
/// 429 TooManyRequests with details.retryAfterSeconds, as kube-apiserver's
/// max-requests-inflight answers (the server adds the Retry-After header).
std::string status_too_many_requests(std::string_view message, int retry_after_seconds);
std::string status_path_not_found();
std::string status_method_not_allowed(std::string_view method);

}  // namespace kueuepp::kube::visibility
