#pragma once

// Namespace deletion (kube-controller-manager's namespace controller, in-process): once
// a namespace is Terminating, everything in it is deleted; when nothing is left (objects
// held by finalizers are waited for), the "kubernetes" finalizer is removed and the
// namespace goes.

#include <set>
#include <string>

#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

class NamespaceController {
 public:
  explicit NamespaceController(ServerContext& ctx);

  void observe(const Change& change);
  /// Resumes the cleanup of namespaces that were terminating before a restart.
  void sweep();

 private:
  void schedule(const std::string& ns);
  void cleanup(const std::string& ns);

  ServerContext& ctx_;
  BucketId namespaces_;
  std::set<std::string> terminating_;
  std::set<std::string> scheduled_;
};

}  // namespace kueuepp::kube::server
