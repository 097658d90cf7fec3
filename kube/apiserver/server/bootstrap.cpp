#include "kube/apiserver/server/bootstrap.hpp"

#include "kube/apiserver/server/api/internal_writes.hpp"

namespace kueuepp::kube::server {

Status create_bootstrap_objects(ServerContext& ctx) {
  const ResourceType* ns_type = ctx.registry.find("", "v1", "namespaces");
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    if (ctx.store.get(ctx.bucket_of(*ns_type), name)) continue;
    json::value ns = json::object{{"metadata", json::object{{"name", name}}}};
    if (auto st = upsert_object(ctx, *ns_type, std::move(ns), "kueuepp"); !st) return st;
  }
  const ResourceType* pc_type = ctx.registry.find("scheduling.k8s.io", "v1", "priorityclasses");
  struct Class {
    const char* name;
    std::int64_t value;
    const char* description;
  };
  for (const Class& c : {Class{"system-node-critical", 2000001000, "Used for system critical pods that must not be moved from their current node."},
                         Class{"system-cluster-critical", 2000000000, "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."}}) {
    if (ctx.store.get(ctx.bucket_of(*pc_type), c.name)) continue;
    json::value pc = json::object{{"metadata", json::object{{"name", c.name}}}, {"value", c.value},
                                  {"description", c.description}};
    if (auto st = upsert_object(ctx, *pc_type, std::move(pc), "kueuepp"); !st) return st;
  }
  return {};
}

}  // namespace kueuepp::kube::server
