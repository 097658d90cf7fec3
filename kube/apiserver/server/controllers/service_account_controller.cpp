#include "kube/apiserver/server/controllers/service_account_controller.hpp"

#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/internal_writes.hpp"
#include "kube/apiserver/server/store/stored_object.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr const char* kDefault = "default";

bool active(const StoredObject& ns) { return meta_string(ns.doc.as_object(), "deletionTimestamp").empty(); }

}  // namespace

ServiceAccountController::ServiceAccountController(ServerContext& ctx)
    : ctx_(ctx), namespaces_(ctx.store.bucket("/namespaces")), service_accounts_(ctx.store.bucket("/serviceaccounts")) {}

void ServiceAccountController::observe(const Change& change) {
  if (change.bucket == namespaces_) {
    if (change.type != ChangeType::Deleted && active(*change.object)) schedule(change.object->name);
    return;
  }
  if (change.bucket == service_accounts_ && change.type == ChangeType::Deleted && change.object->name == kDefault) {
    schedule(change.object->ns);
  }
}

void ServiceAccountController::sweep() {
  ctx_.store.scan(namespaces_, "", "", 0, [&](const ObjectPtr& ns) {
    if (active(*ns)) schedule(ns->name);
    return true;
  });
}

// Deferred to the server's scheduler: a change is observed inside the write that made it.
void ServiceAccountController::schedule(const std::string& ns) {
  if (!scheduled_.insert(ns).second) return;
  ctx_.scheduler.post([this, ns] {
    scheduled_.erase(ns);
    ensure(ns);
  });
}

void ServiceAccountController::ensure(const std::string& ns) {
  ObjectPtr nso = ctx_.store.get(namespaces_, ns);
  if (!nso || !active(*nso)) return;
  if (ctx_.store.get(service_accounts_, object_key(ns, kDefault))) return;
  const ResourceType* type = ctx_.registry.find("", "v1", "serviceaccounts");
  if (type == nullptr) return;
  json::value account = json::object{{"metadata", json::object{{"name", kDefault}, {"namespace", ns}}}};
  if (auto st = upsert_object(ctx_, *type, std::move(account), "kube-controller-manager"); !st) {
    spdlog::warn("namespace {}: creating ServiceAccount default failed: {}", ns, st.error().message);
  }
}

}  // namespace kueuepp::kube::server
