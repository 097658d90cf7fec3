#include "kube/apiserver/server/store/object_store.hpp"

#include <algorithm>
#include <stdexcept>

namespace kueuepp::kube::server {

std::string_view to_string(ChangeType t) {
  switch (t) {
    case ChangeType::Added: return "ADDED";
    case ChangeType::Modified: return "MODIFIED";
    case ChangeType::Deleted: return "DELETED";
  }
  return "ADDED";
}

ObjectStore::ObjectStore(std::size_t history_limit) : history_limit_(std::max<std::size_t>(history_limit, 1)) {}

BucketId ObjectStore::bucket(std::string_view name) {
  auto it = bucket_ids_.find(std::string(name));
  if (it != bucket_ids_.end()) return it->second;
  auto id = static_cast<BucketId>(buckets_.size());
  buckets_.push_back(Bucket{std::string(name), {}});
  bucket_ids_.emplace(std::string(name), id);
  return id;
}

const std::string& ObjectStore::bucket_name(BucketId id) const { return buckets_.at(id).name; }

ObjectPtr ObjectStore::get(BucketId bucket, std::string_view key) const {
  const auto& objects = buckets_.at(bucket).objects;
  auto it = objects.find(key);
  return it == objects.end() ? nullptr : it->second;
}

const Change& ObjectStore::record(Change change) {
  history_.push_back(std::move(change));
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
  return history_.back();
}

const Change& ObjectStore::put(BucketId bucket, json::value doc, schema::ValidationStamp validation,
                               const StoredObject* managed_fields_of) {
  ObjectPtr object = make_stored(std::move(doc), rv_ + 1, validation, managed_fields_of);
  ++rv_;
  auto& objects = buckets_.at(bucket).objects;
  auto [it, inserted] = objects.try_emplace(object->key, object);
  Change change;
  change.rv = rv_;
  change.bucket = bucket;
  change.object = object;
  if (inserted) {
    change.type = ChangeType::Added;
  } else {
    change.type = ChangeType::Modified;
    change.previous = std::move(it->second);
    it->second = object;
  }
  return record(std::move(change));
}

const Change& ObjectStore::remove(BucketId bucket, std::string_view key) {
  auto& objects = buckets_.at(bucket).objects;
  auto it = objects.find(key);
  if (it == objects.end()) throw std::logic_error("ObjectStore::remove of a missing object");
  ObjectPtr previous = std::move(it->second);
  objects.erase(it);
  ++rv_;
  Change change;
  change.rv = rv_;
  change.bucket = bucket;
  change.type = ChangeType::Deleted;
  change.object = restamped(*previous, rv_);
  change.previous = std::move(previous);
  return record(std::move(change));
}

void ObjectStore::scan(BucketId bucket, std::string_view prefix, std::string_view after,
                       std::uint64_t at_rv, const Visitor& visit) const {
  const auto& objects = buckets_.at(bucket).objects;
  // Undo overlay: for every key changed after at_rv, its version at at_rv (null: absent).
  std::map<std::string_view, const ObjectPtr*> overlay;
  if (at_rv != 0 && at_rv < rv_) {
    for (auto it = history_.rbegin(); it != history_.rend() && it->rv > at_rv; ++it) {
      if (it->bucket != bucket) continue;
      const std::string& key = it->object->key;
      if (key.compare(0, prefix.size(), prefix) != 0) continue;
      overlay[key] = &it->previous;
    }
  }
  auto in_range = [&](std::string_view key) { return key.substr(0, prefix.size()) == prefix; };
  auto start = [&](auto& map) {
    auto it = map.lower_bound(std::max(prefix, after));
    if (it != map.end() && !after.empty() && it->first == after) ++it;
    return it;
  };
  auto live = start(objects);
  auto undo = start(overlay);
  while (true) {
    bool live_ok = live != objects.end() && in_range(live->first);
    bool undo_ok = undo != overlay.end() && in_range(undo->first);
    if (!live_ok && !undo_ok) return;
    const ObjectPtr* version = nullptr;
    if (undo_ok && (!live_ok || undo->first <= std::string_view(live->first))) {
      if (live_ok && undo->first == std::string_view(live->first)) ++live;
      version = undo->second;
      ++undo;
    } else {
      version = &live->second;
      ++live;
    }
    if (*version && !visit(*version)) return;
  }
}

std::size_t ObjectStore::count(BucketId bucket, std::string_view prefix) const {
  const auto& objects = buckets_.at(bucket).objects;
  if (prefix.empty()) return objects.size();
  std::size_t n = 0;
  for (auto it = objects.lower_bound(prefix); it != objects.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    ++n;
  }
  return n;
}

std::vector<const Change*> ObjectStore::changes_after(std::uint64_t after) const {
  auto it = std::upper_bound(history_.begin(), history_.end(), after,
                             [](std::uint64_t rv, const Change& c) { return rv < c.rv; });
  std::vector<const Change*> out;
  out.reserve(static_cast<std::size_t>(history_.end() - it));
  for (; it != history_.end(); ++it) out.push_back(&*it);
  return out;
}

void ObjectStore::restore(BucketId bucket, ObjectPtr object) {
  buckets_.at(bucket).objects[object->key] = std::move(object);
}

void ObjectStore::restore_remove(BucketId bucket, std::string_view key) {
  auto& objects = buckets_.at(bucket).objects;
  auto it = objects.find(key);
  if (it != objects.end()) objects.erase(it);
}

void ObjectStore::restore_rv(std::uint64_t rv) {
  rv_ = rv;
  compacted_rv_ = rv;
  history_.clear();
}

std::vector<ObjectStore::BucketContents> ObjectStore::contents() const {
  std::vector<BucketContents> out;
  out.reserve(buckets_.size());
  for (const auto& b : buckets_) {
    BucketContents c{b.name, {}};
    c.objects.reserve(b.objects.size());
    for (const auto& [key, obj] : b.objects) c.objects.push_back(obj);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kueuepp::kube::server
