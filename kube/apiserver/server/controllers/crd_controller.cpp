#include "kube/apiserver/server/controllers/crd_controller.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/deletion.hpp"
#include "kube/apiserver/server/api/internal_writes.hpp"
#include "kube/apiserver/server/registry/crd_types.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

bool deleting(const StoredObject& o) { return !meta_string(o.doc.as_object(), "deletionTimestamp").empty(); }

std::string bucket_name_of(const StoredObject& crd) {
  const json::value* spec = crd.doc.as_object().if_contains("spec");
  if (spec == nullptr) return {};
  const json::value* names = json::find(*spec, "names");
  return std::string(json::get_string(*spec, "group")) + "/" +
         std::string(names != nullptr ? json::get_string(*names, "plural") : "");
}

}  // namespace

CrdController::CrdController(ServerContext& ctx)
    : ctx_(ctx), crds_(ctx.store.bucket("apiextensions.k8s.io/customresourcedefinitions")) {}

void CrdController::serve(const StoredObject& crd) {
  std::vector<std::string> problems;
  auto types = resource_types_from_crd(crd.doc.as_object(), ctx_.conversion_calls, problems);
  for (const auto& p : problems) spdlog::error("CustomResourceDefinition {}: {}", crd.name, p);
  ctx_.registry.set_custom(crd.name, std::move(types));
}

void CrdController::observe(const Change& change) {
  if (change.bucket != crds_) {
    auto it = terminating_buckets_.find(change.bucket);
    if (change.type == ChangeType::Deleted && it != terminating_buckets_.end()) schedule_cleanup(it->second);
    return;
  }
  const StoredObject& crd = *change.object;
  if (change.type == ChangeType::Deleted) {
    ctx_.registry.set_custom(crd.name, {});
    for (auto it = terminating_buckets_.begin(); it != terminating_buckets_.end();) {
      it = it->second == crd.name ? terminating_buckets_.erase(it) : std::next(it);
    }
    return;
  }
  const json::value* spec = crd.doc.as_object().if_contains("spec");
  const json::value* old_spec = change.previous ? change.previous->doc.as_object().if_contains("spec") : nullptr;
  bool spec_changed = change.type == ChangeType::Added || spec == nullptr || old_spec == nullptr || *spec != *old_spec;
  if (spec_changed) serve(crd);
  if (deleting(crd)) {
    terminating_buckets_[ctx_.store.bucket(bucket_name_of(crd))] = crd.name;
    schedule_cleanup(crd.name);
  }
}

void CrdController::load_all() {
  std::vector<ObjectPtr> all;
  ctx_.store.scan(crds_, "", "", 0, [&](const ObjectPtr& o) {
    all.push_back(o);
    return true;
  });
  for (const auto& crd : all) {
    serve(*crd);
    if (deleting(*crd)) {
      terminating_buckets_[ctx_.store.bucket(bucket_name_of(*crd))] = crd->name;
      schedule_cleanup(crd->name);
    }
  }
}

void CrdController::schedule_cleanup(const std::string& name) {
  if (!scheduled_.insert(name).second) return;
  ctx_.scheduler.post([this, name] {
    scheduled_.erase(name);
    cleanup(name);
  });
}

void CrdController::cleanup(const std::string& name) {
  ObjectPtr crd = ctx_.store.get(crds_, name);
  if (!crd || !deleting(*crd)) return;
  BucketId bucket = ctx_.store.bucket(bucket_name_of(*crd));
  const ResourceType* type = nullptr;
  for (const auto& t : ctx_.registry.storage_types()) {
    if (t->bucket == ctx_.store.bucket_name(bucket)) type = t.get();
  }
  bool remaining = false;
  if (type != nullptr) {
    std::vector<ObjectPtr> objects;
    ctx_.store.scan(bucket, "", "", 0, [&](const ObjectPtr& o) {
      objects.push_back(o);
      return true;
    });
    for (const auto& o : objects) {
      if (deleting(*o)) {
        remaining = true;
        continue;
      }
      DeleteOptions options;
      options.propagation_policy = "Background";
      auto result = delete_object(ctx_, *type, o, options, {});
      if (!result || !result->removed) remaining = true;
    }
  }
  if (remaining) return;
  crd = ctx_.store.get(crds_, name);
  if (!crd) return;
  json::value next = crd->document();
  json::object& meta = metadata_of(next.as_object());
  if (json::value* f = meta.if_contains("finalizers"); f != nullptr && f->is_array()) {
    auto& arr = f->as_array();
    arr.erase(std::remove(arr.begin(), arr.end(), json::value(kCleanupFinalizer)), arr.end());
    if (arr.empty()) meta.erase("finalizers");
  }
  const ResourceType* crd_type = ctx_.registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  write_back(ctx_, *crd_type, *crd, std::move(next));
}

}  // namespace kueuepp::kube::server
