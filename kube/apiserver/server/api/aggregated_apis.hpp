#pragma once

// API groups served by other servers behind this one (kube-aggregator's APIServices), as
// the request dispatcher and discovery see them: whether a group-version is proxied, the
// proxying itself, and what discovery lists for those groups. The interface keeps the
// networking out of api/; kube/apiserver/server/aggregation/ implements it. Store thread
// only.

#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/request_user.hpp"
#include "kube/apiserver/server/http/http_types.hpp"

namespace kueuepp::kube::server {

/// One group-version an APIService with a service reference serves.
struct RemoteGroupVersion {
  std::string group;
  std::string version;
  int group_priority_minimum = 0;
  int version_priority = 0;
  /// The backend's APIResourceList "resources" (an array; null until fetched).
  json::value resources;
  /// Whether `resources` is what the backend answers now (Available and fetched).
  bool current = false;
};

class AggregatedApis {
 public:
  virtual ~AggregatedApis() = default;
  /// Whether requests under /apis/<group>/<version> go to another server.
  virtual bool proxies(std::string_view group, std::string_view version) const = 0;
  /// Answers `request` (under a group-version proxies() accepts) as `user`.
  virtual void proxy(const HttpRequest& request, const RequestUser& user, ResponderPtr responder) = 0;
  /// Every group-version proxied, in discovery order (group priority, then version priority).
  virtual std::vector<RemoteGroupVersion> remote_group_versions() const = 0;
};

}  // namespace kueuepp::kube::server
