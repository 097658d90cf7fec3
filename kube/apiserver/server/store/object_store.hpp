#pragma once

// The object store: every object of every served kind, one cluster-wide resourceVersion
// counter, and a bounded history of changes that serves watches from a resourceVersion,
// consistent pagination snapshots and resourceVersionMatch=Exact lists.
//
// Objects live in buckets, one per storage resource ("batch/jobs", "/events", ...); a
// bucket is shared by every API version (and by both Event APIs) that serves it. Keys are
// "namespace/name" (or "name"), kept sorted, so lists come out in kube-apiserver's order.
//
// Reading the state at an older resourceVersion walks the history back from the live map
// (an undo overlay), so there is one copy of each object version at most.
//
// Not thread-safe: the API server touches it from its one store thread only.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kube/apiserver/server/store/stored_object.hpp"

namespace kueuepp::kube::server {

using BucketId = std::uint32_t;

enum class ChangeType : std::uint8_t { Added, Modified, Deleted };
std::string_view to_string(ChangeType t);

/// One committed change, as watches see it.
struct Change {
  std::uint64_t rv = 0;
  BucketId bucket = 0;
  ChangeType type = ChangeType::Added;
  /// The new version; for Deleted, the last version stamped with the deletion's
  /// resourceVersion (what a DELETED watch event carries).
  ObjectPtr object;
  /// The version before the change (null for Added).
  ObjectPtr previous;
};

class ObjectStore {
 public:
  explicit ObjectStore(std::size_t history_limit = 25000);

  /// The bucket of a storage resource, created on first use.
  BucketId bucket(std::string_view name);
  const std::string& bucket_name(BucketId id) const;
  std::size_t bucket_count() const { return buckets_.size(); }

  ObjectPtr get(BucketId bucket, std::string_view key) const;

  /// Writes a new version of the object named by doc's metadata (created or replaced)
  /// with the next resourceVersion. The returned change stays valid until the next write.
  /// `managed_fields_of`: as for make_stored.
  const Change& put(BucketId bucket, json::value doc, schema::ValidationStamp validation = {},
                    const StoredObject* managed_fields_of = nullptr);
  /// Removes an object (it must exist).
  const Change& remove(BucketId bucket, std::string_view key);

  /// The resourceVersion of the latest write (what a list at "now" reports).
  std::uint64_t current_rv() const { return rv_; }
  /// Changes after this resourceVersion are all in the history; older versions are gone
  /// (410 for watches and snapshot reads that start before it).
  std::uint64_t compacted_rv() const { return compacted_rv_; }

  /// Visits the objects of `bucket` whose key starts with `prefix` and sorts after
  /// `after`, as they were at resourceVersion `at_rv` (0: now), in key order, until the
  /// visitor returns false. `at_rv` must not be older than compacted_rv().
  using Visitor = std::function<bool(const ObjectPtr&)>;
  void scan(BucketId bucket, std::string_view prefix, std::string_view after, std::uint64_t at_rv,
            const Visitor& visit) const;
  /// Number of objects of `bucket` with `prefix` (now).
  std::size_t count(BucketId bucket, std::string_view prefix) const;

  /// The history of changes with rv > `after`, oldest first.
  std::vector<const Change*> changes_after(std::uint64_t after) const;

  /// Recovery: installs an object version without recording history.
  void restore(BucketId bucket, ObjectPtr object);
  void restore_remove(BucketId bucket, std::string_view key);
  /// Recovery: the resourceVersion the restored state is at; history starts after it.
  void restore_rv(std::uint64_t rv);

  /// Every live object of every bucket (for snapshots): copies of the shared pointers.
  struct BucketContents {
    std::string name;
    std::vector<ObjectPtr> objects;
  };
  std::vector<BucketContents> contents() const;

 private:
  struct Bucket {
    std::string name;
    std::map<std::string, ObjectPtr, std::less<>> objects;
  };
  const Change& record(Change change);

  std::vector<Bucket> buckets_;
  std::unordered_map<std::string, BucketId> bucket_ids_;
  std::deque<Change> history_;
  std::size_t history_limit_;
  std::uint64_t rv_ = 1;
  std::uint64_t compacted_rv_ = 1;
};

}  // namespace kueuepp::kube::server
