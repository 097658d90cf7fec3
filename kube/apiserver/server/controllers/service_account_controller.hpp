#pragma once

// The ServiceAccount named "default" in every namespace (kube-controller-manager's
// serviceaccount controller, in-process): created when a namespace is, and again if it is
// deleted while its namespace is active. Manifests and `kubectl create token default`
// rely on it, as on any cluster.

#include <set>
#include <string>

#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

class ServiceAccountController {
 public:
  explicit ServiceAccountController(ServerContext& ctx);

  void observe(const Change& change);
  /// Every active namespace gets its default ServiceAccount (at start, and after a
  /// restart from a data directory).
  void sweep();

 private:
  void schedule(const std::string& ns);
  void ensure(const std::string& ns);

  ServerContext& ctx_;
  BucketId namespaces_;
  BucketId service_accounts_;
  std::set<std::string> scheduled_;
};

}  // namespace kueuepp::kube::server
