#pragma once

// Serving custom resources: when a CustomResourceDefinition is created or its spec
// changes, the registry serves its versions at once; when one is deleted, its custom
// resources are deleted first (customresourcecleanup finalizer), then it stops being
// served.

#include <map>
#include <set>
#include <string>

#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

class CrdController {
 public:
  explicit CrdController(ServerContext& ctx);

  void observe(const Change& change);
  /// Serves every stored definition (after a restart) and resumes pending cleanups.
  void load_all();

 private:
  void serve(const StoredObject& crd);
  void schedule_cleanup(const std::string& name);
  void cleanup(const std::string& name);

  ServerContext& ctx_;
  BucketId crds_;
  std::set<std::string> scheduled_;
  /// Buckets of custom resources whose definition is being deleted -> definition name.
  std::map<BucketId, std::string> terminating_buckets_;
};

}  // namespace kueuepp::kube::server
