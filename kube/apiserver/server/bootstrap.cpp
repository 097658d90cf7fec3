#include "kube/apiserver/server/bootstrap.hpp"

#include "kube/apiserver/server/api/internal_writes.hpp"
#include "kube/apiserver/server/auth/user_info.hpp"
#include "kube/apiserver/server/bootstrap_roles.hpp"
#include "kube/apiserver/server/store/stored_object.hpp"

namespace kueuepp::kube::server {

namespace {

json::array strings(std::initializer_list<const char*> items) {
  json::array out;
  for (const char* s : items) out.emplace_back(s);
  return out;
}

json::object bootstrap_metadata(const char* name) {
  return json::object{{"name", name},
                      {"labels", json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}}},
                      {"annotations", json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

// kube-apiserver's bootstrap policy for every authenticated user: discovery, the
// health and version paths, and asking what one may do (kubectl auth can-i). Without
// it a user that RBAC governs could not even read /api.
Status create_bootstrap_rbac(ServerContext& ctx) {
  const ResourceType* roles = ctx.registry.find("rbac.authorization.k8s.io", "v1", "clusterroles");
  const ResourceType* bindings = ctx.registry.find("rbac.authorization.k8s.io", "v1", "clusterrolebindings");
  struct Policy {
    const char* name;
    json::array rules;
    json::array groups;
  };
  std::vector<Policy> policies;
  policies.push_back({"system:discovery",
                      json::array{json::object{{"nonResourceURLs", strings({"/api", "/api/*", "/apis", "/apis/*", "/healthz",
                                                                           "/livez", "/openapi", "/openapi/*", "/readyz",
                                                                           "/version", "/version/"})},
                                               {"verbs", strings({"get"})}}},
                      strings({"system:authenticated"})});
  policies.push_back({"system:basic-user",
                      json::array{json::object{{"apiGroups", strings({"authorization.k8s.io"})},
                                               {"resources", strings({"selfsubjectaccessreviews", "selfsubjectrulesreviews"})},
                                               {"verbs", strings({"create"})}},
                                  json::object{{"apiGroups", strings({"authentication.k8s.io"})},
                                               {"resources", strings({"selfsubjectreviews"})},
                                               {"verbs", strings({"create"})}}},
                      strings({"system:authenticated"})});
  policies.push_back({"system:public-info-viewer",
                      json::array{json::object{{"nonResourceURLs", strings({"/healthz", "/livez", "/readyz", "/version", "/version/"})},
                                               {"verbs", strings({"get"})}}},
                      strings({"system:authenticated", "system:unauthenticated"})});
  for (auto& p : policies) {
    if (!ctx.store.get(ctx.bucket_of(*roles), p.name)) {
      json::value role = json::object{{"metadata", bootstrap_metadata(p.name)}, {"rules", std::move(p.rules)}};
      if (auto st = upsert_object(ctx, *roles, std::move(role), "kueuepp"); !st) return st;
    }
    if (!ctx.store.get(ctx.bucket_of(*bindings), p.name)) {
      json::array subjects;
      for (const auto& g : p.groups) {
        subjects.push_back(json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", g}});
      }
      json::value binding = json::object{
          {"metadata", bootstrap_metadata(p.name)},
          {"roleRef", json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", p.name}}},
          {"subjects", std::move(subjects)}};
      if (auto st = upsert_object(ctx, *bindings, std::move(binding), "kueuepp"); !st) return st;
    }
  }
  for (const json::value& role : default_cluster_roles()) {
    if (ctx.store.get(ctx.bucket_of(*roles), json::get_string(role.as_object().at("metadata"), "name"))) continue;
    if (auto st = upsert_object(ctx, *roles, role, "kueuepp"); !st) return st;
  }
  if (!ctx.store.get(ctx.bucket_of(*bindings), "cluster-admin")) {
    json::value binding = json::object{
        {"metadata", bootstrap_metadata("cluster-admin")},
        {"roleRef", json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "cluster-admin"}}},
        {"subjects", json::array{json::object{
                         {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", auth::kMastersGroup}}}}};
    if (auto st = upsert_object(ctx, *bindings, std::move(binding), "kueuepp"); !st) return st;
  }
  return {};
}

// kube-apiserver's bootstrap Role for extension API servers: reading the front proxy's
// trust (ConfigMap kube-system/extension-apiserver-authentication). Aggregated APIs, such
// as kueuepp's visibility API, bind their ServiceAccount to it.
Status create_bootstrap_namespaced_roles(ServerContext& ctx) {
  const ResourceType* roles = ctx.registry.find("rbac.authorization.k8s.io", "v1", "roles");
  constexpr const char* kName = "extension-apiserver-authentication-reader";
  constexpr const char* kNamespace = "kube-system";
  if (ctx.store.get(ctx.bucket_of(*roles), object_key(kNamespace, kName))) return {};
  json::object metadata = bootstrap_metadata(kName);
  metadata["namespace"] = kNamespace;
  json::value role = json::object{
      {"metadata", std::move(metadata)},
      {"rules", json::array{json::object{{"apiGroups", strings({""})},
                                         {"resources", strings({"configmaps"})},
                                         {"resourceNames", strings({"extension-apiserver-authentication"})},
                                         {"verbs", strings({"get", "list", "watch"})}}}}};
  return upsert_object(ctx, *roles, std::move(role), "kueuepp");
}

}  // namespace

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
  if (auto st = create_bootstrap_rbac(ctx); !st) return st;
  return create_bootstrap_namespaced_roles(ctx);
}

}  // namespace kueuepp::kube::server
