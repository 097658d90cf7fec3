#include "kube/apiserver/server/controllers/garbage_collector.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/deletion.hpp"
#include "kube/apiserver/server/api/internal_writes.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kOrphan = "orphan";
constexpr std::string_view kForeground = "foregroundDeletion";

const json::array* owner_refs(const StoredObject& obj) {
  const json::object* meta = metadata_of(obj.doc.as_object());
  if (meta == nullptr) return nullptr;
  const json::value* refs = meta->if_contains("ownerReferences");
  return refs != nullptr && refs->is_array() ? &refs->as_array() : nullptr;
}

bool has_finalizer(const StoredObject& obj, std::string_view name) {
  const json::object* meta = metadata_of(obj.doc.as_object());
  if (meta == nullptr) return false;
  const json::value* f = meta->if_contains("finalizers");
  if (f == nullptr || !f->is_array()) return false;
  return std::find(f->as_array().begin(), f->as_array().end(), json::value(name)) != f->as_array().end();
}

bool deleting(const StoredObject& obj) { return !meta_string(obj.doc.as_object(), "deletionTimestamp").empty(); }

json::value without_finalizer(const StoredObject& obj, std::string_view name) {
  json::value next = obj.document();
  json::object& meta = metadata_of(next.as_object());
  json::value* f = meta.if_contains("finalizers");
  if (f != nullptr && f->is_array()) {
    auto& arr = f->as_array();
    arr.erase(std::remove(arr.begin(), arr.end(), json::value(name)), arr.end());
    if (arr.empty()) meta.erase("finalizers");
  }
  return next;
}

}  // namespace

GarbageCollector::GarbageCollector(ServerContext& ctx) : ctx_(ctx), types_(ctx) {}

void GarbageCollector::index(const StoredObject& obj, BucketId bucket) {
  Ref ref{bucket, obj.key};
  if (!obj.uid.empty()) by_uid_[obj.uid] = ref;
  if (const json::array* refs = owner_refs(obj)) {
    for (const auto& r : *refs) {
      std::string_view uid = json::get_string(r, "uid");
      if (!uid.empty()) dependents_[std::string(uid)].insert(ref);
    }
  }
}

bool GarbageCollector::same_index_entries(const StoredObject& a, const StoredObject& b) {
  if (a.uid != b.uid || a.key != b.key) return false;
  const json::array* ra = owner_refs(a);
  const json::array* rb = owner_refs(b);
  if (ra == nullptr || rb == nullptr) return ra == rb;
  return json::equal(*ra, *rb);
}

void GarbageCollector::unindex(const StoredObject& obj, BucketId bucket) {
  Ref ref{bucket, obj.key};
  auto it = by_uid_.find(obj.uid);
  if (it != by_uid_.end() && it->second.bucket == bucket && it->second.key == obj.key) by_uid_.erase(it);
  if (const json::array* refs = owner_refs(obj)) {
    for (const auto& r : *refs) {
      auto d = dependents_.find(std::string(json::get_string(r, "uid")));
      if (d == dependents_.end()) continue;
      d->second.erase(ref);
      if (d->second.empty()) dependents_.erase(d);
    }
  }
}

void GarbageCollector::observe(const Change& change) {
  const StoredObject& obj = *change.object;
  switch (change.type) {
    case ChangeType::Added:
      index(obj, change.bucket);
      if (owner_refs(obj) != nullptr) schedule_check(Ref{change.bucket, obj.key});
      break;
    case ChangeType::Modified:
      // Most updates keep uid and owner references (a status write always does): the
      // index entries stay as they are.
      if (!same_index_entries(*change.previous, obj)) {
        unindex(*change.previous, change.bucket);
        index(obj, change.bucket);
      }
      if (deleting(obj) && (has_finalizer(obj, kOrphan) || has_finalizer(obj, kForeground))) schedule_owner(obj.uid);
      if (const json::array* refs = owner_refs(obj)) {
        const json::array* before = owner_refs(*change.previous);
        if (before == nullptr || *before != *refs) schedule_check(Ref{change.bucket, obj.key});
      }
      break;
    case ChangeType::Deleted:
      unindex(*change.previous, change.bucket);
      if (dependents_.contains(obj.uid)) schedule_owner(obj.uid);
      if (const json::array* refs = owner_refs(obj)) {
        // An owner deleting in the foreground may be waiting for this one.
        for (const auto& r : *refs) schedule_owner(std::string(json::get_string(r, "uid")));
      }
      break;
  }
}

void GarbageCollector::sweep() {
  by_uid_.clear();
  dependents_.clear();
  for (std::size_t b = 0; b < ctx_.store.bucket_count(); ++b) {
    auto bucket = static_cast<BucketId>(b);
    ctx_.store.scan(bucket, "", "", 0, [&](const ObjectPtr& o) {
      index(*o, bucket);
      return true;
    });
  }
  for (auto& [uid, ref] : by_uid_) {
    ObjectPtr o = ctx_.store.get(ref.bucket, ref.key);
    if (!o) continue;
    if (deleting(*o) && (has_finalizer(*o, kOrphan) || has_finalizer(*o, kForeground))) schedule_owner(uid);
    if (owner_refs(*o) != nullptr) schedule_check(ref);
  }
}

void GarbageCollector::schedule_owner(const std::string& owner_uid) {
  if (owner_uid.empty() || !scheduled_owners_.insert(owner_uid).second) return;
  ctx_.scheduler.post([this, owner_uid] {
    scheduled_owners_.erase(owner_uid);
    run_owner(owner_uid);
  });
}

void GarbageCollector::schedule_check(Ref dependent) {
  if (!scheduled_checks_.insert(dependent).second) return;
  ctx_.scheduler.post([this, dependent] {
    scheduled_checks_.erase(dependent);
    run_check(dependent);
  });
}

bool GarbageCollector::owner_present(const json::value& ref) const {
  if (by_uid_.contains(std::string(json::get_string(ref, "uid")))) return true;
  // An owner of a kind the server does not serve cannot be looked up; like the real
  // garbage collector, leave its dependents alone.
  std::string_view api_version = json::get_string(ref, "apiVersion");
  std::size_t slash = api_version.find('/');
  std::string_view group = slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  return ctx_.registry.find_kind(group, json::get_string(ref, "kind")) == nullptr;
}

void GarbageCollector::run_check(const Ref& dependent) { release_or_delete(dependent); }

void GarbageCollector::release_or_delete(const Ref& dependent) {
  ObjectPtr obj = ctx_.store.get(dependent.bucket, dependent.key);
  if (!obj) return;
  const json::array* refs = owner_refs(*obj);
  if (refs == nullptr || refs->empty()) return;
  ResourceTypePtr type = types_.of(dependent.bucket);
  if (!type) return;
  json::array alive;
  for (const auto& r : *refs) {
    if (owner_present(r)) alive.push_back(r);
  }
  if (alive.size() == refs->size()) return;
  if (alive.empty()) {
    if (deleting(*obj)) return;
    spdlog::debug("garbage collector: deleting {} {} (its owners are gone)", type->kind, obj->key);
    DeleteOptions options;
    options.propagation_policy = "Background";
    auto result = delete_object(ctx_, *type, obj, options, {});
    if (!result) spdlog::warn("garbage collector: deleting {} {} failed: {}", type->kind, obj->key, result.error().message);
    return;
  }
  json::value next = obj->document();
  metadata_of(next.as_object())["ownerReferences"] = std::move(alive);
  write_back(ctx_, *type, *obj, std::move(next));
}

void GarbageCollector::run_owner(const std::string& owner_uid) {
  auto owner_it = by_uid_.find(owner_uid);
  std::set<Ref> deps;
  if (auto d = dependents_.find(owner_uid); d != dependents_.end()) deps = d->second;
  if (owner_it == by_uid_.end()) {
    for (const auto& dep : deps) release_or_delete(dep);
    return;
  }
  handle_deleting_owner(owner_it->second);
}

void GarbageCollector::handle_deleting_owner(const Ref& owner_ref) {
  ObjectPtr owner = ctx_.store.get(owner_ref.bucket, owner_ref.key);
  if (!owner || !deleting(*owner)) return;
  ResourceTypePtr owner_type = types_.of(owner_ref.bucket);
  if (!owner_type) return;
  std::set<Ref> deps;
  if (auto d = dependents_.find(owner->uid); d != dependents_.end()) deps = d->second;
  if (has_finalizer(*owner, kOrphan)) {
    for (const auto& dep : deps) {
      ObjectPtr obj = ctx_.store.get(dep.bucket, dep.key);
      ResourceTypePtr type = types_.of(dep.bucket);
      if (!obj || !type) continue;
      json::array kept;
      for (const auto& r : *owner_refs(*obj)) {
        if (json::get_string(r, "uid") != owner->uid) kept.push_back(r);
      }
      json::value next = obj->document();
      json::object& meta = metadata_of(next.as_object());
      if (kept.empty()) {
        meta.erase("ownerReferences");
      } else {
        meta["ownerReferences"] = std::move(kept);
      }
      write_back(ctx_, *type, *obj, std::move(next));
    }
    owner = ctx_.store.get(owner_ref.bucket, owner_ref.key);
    if (owner) write_back(ctx_, *owner_type, *owner, without_finalizer(*owner, kOrphan));
    return;
  }
  if (has_finalizer(*owner, kForeground)) {
    for (const auto& dep : deps) {
      ObjectPtr obj = ctx_.store.get(dep.bucket, dep.key);
      ResourceTypePtr type = types_.of(dep.bucket);
      if (!obj || !type || deleting(*obj)) continue;
      DeleteOptions options;
      options.propagation_policy = "Background";
      (void)delete_object(ctx_, *type, obj, options, {});
    }
    auto d = dependents_.find(owner->uid);
    bool blocked = false;
    if (d != dependents_.end()) {
      for (const auto& dep : d->second) {
        ObjectPtr obj = ctx_.store.get(dep.bucket, dep.key);
        if (!obj) continue;
        for (const auto& r : *owner_refs(*obj)) {
          const json::value* block = json::find(r, "blockOwnerDeletion");
          if (json::get_string(r, "uid") == owner->uid && block != nullptr && block->is_bool() && block->get_bool()) {
            blocked = true;
          }
        }
      }
    }
    if (!blocked) write_back(ctx_, *owner_type, *owner, without_finalizer(*owner, kForeground));
  }
}

}  // namespace kueuepp::kube::server
