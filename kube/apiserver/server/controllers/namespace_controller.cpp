#include "kube/apiserver/server/controllers/namespace_controller.hpp"

#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/deletion.hpp"
#include "kube/apiserver/server/api/internal_writes.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

NamespaceController::NamespaceController(ServerContext& ctx)
    : ctx_(ctx), namespaces_(ctx.store.bucket("/namespaces")) {}

void NamespaceController::observe(const Change& change) {
  if (change.bucket == namespaces_) {
    const StoredObject& ns = *change.object;
    if (change.type == ChangeType::Deleted) {
      terminating_.erase(ns.name);
    } else if (!meta_string(ns.doc.as_object(), "deletionTimestamp").empty()) {
      terminating_.insert(ns.name);
      schedule(ns.name);
    }
    return;
  }
  // Something in a terminating namespace went away: maybe it was the last.
  if (change.type == ChangeType::Deleted && !change.object->ns.empty() && terminating_.contains(change.object->ns)) {
    schedule(change.object->ns);
  }
}

void NamespaceController::sweep() {
  ctx_.store.scan(namespaces_, "", "", 0, [&](const ObjectPtr& ns) {
    if (!meta_string(ns->doc.as_object(), "deletionTimestamp").empty()) {
      terminating_.insert(ns->name);
      schedule(ns->name);
    }
    return true;
  });
}

void NamespaceController::schedule(const std::string& ns) {
  if (!scheduled_.insert(ns).second) return;
  ctx_.scheduler.post([this, ns] {
    scheduled_.erase(ns);
    cleanup(ns);
  });
}

void NamespaceController::cleanup(const std::string& ns) {
  ObjectPtr nso = ctx_.store.get(namespaces_, ns);
  if (!nso || meta_string(nso->doc.as_object(), "deletionTimestamp").empty()) return;
  std::string prefix = ns + "/";
  bool remaining = false;
  for (const auto& type : ctx_.registry.storage_types()) {
    if (!type->namespaced) continue;
    BucketId bucket = ctx_.bucket_of(*type);
    std::vector<ObjectPtr> objects;
    ctx_.store.scan(bucket, prefix, "", 0, [&](const ObjectPtr& o) {
      objects.push_back(o);
      return true;
    });
    for (const auto& o : objects) {
      if (!meta_string(o->doc.as_object(), "deletionTimestamp").empty()) {
        remaining = true;  // waiting for its finalizers
        continue;
      }
      DeleteOptions options;
      options.propagation_policy = "Background";
      auto result = delete_object(ctx_, *type, o, options, {});
      if (!result) {
        spdlog::warn("namespace {}: deleting {} {} failed: {}", ns, type->kind, o->name, result.error().message);
      }
      if (!result || !result->removed) remaining = true;
    }
  }
  if (remaining) return;
  // Empty: drop the "kubernetes" finalizer; the namespace goes when nothing else holds it.
  nso = ctx_.store.get(namespaces_, ns);
  if (!nso) return;
  const ResourceType* type = ctx_.registry.find("", "v1", "namespaces");
  json::value next = nso->document();
  json::object& spec = next.as_object()["spec"].as_object();
  spec["finalizers"] = json::array{};
  spdlog::debug("namespace {} is empty: finalizing", ns);
  write_back(ctx_, *type, *nso, std::move(next));
}

}  // namespace kueuepp::kube::server
