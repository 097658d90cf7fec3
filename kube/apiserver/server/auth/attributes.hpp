#pragma once

// What a request asks to do, as kube-apiserver's authorizer.Attributes: a verb on a
// resource (group, resource, subresource, namespace, name) or on a non-resource path.

#include <string>

#include "kube/apiserver/server/auth/user_info.hpp"

namespace kueuepp::kube::server::auth {

struct Attributes {
  UserInfo user;
  std::string verb;
  bool resource_request = true;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
  std::string path;  ///< non-resource requests: the URL path
};

/// kube-apiserver's 403 message for a refused request (its ForbiddenStatusError):
/// `jobs.batch "x" is forbidden: User "u" cannot get resource "jobs" in API group "batch"
/// in the namespace "ns"`, `... at the cluster scope`, or `forbidden: User "u" cannot get
/// path "/p"`; `reason` (the authorizer's, may be empty) is appended after ": ".
std::string forbidden_message(const Attributes& a, const std::string& reason);

}  // namespace kueuepp::kube::server::auth
