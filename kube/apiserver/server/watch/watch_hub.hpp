#pragma once

// The watch hub: every open watch and the fan-out of committed changes to them. Each
// change is encoded at most once per (representation, view) and the bytes are shared by
// every watcher that gets them. A watcher whose client does not keep up (its stream's
// bound is exceeded) is ended with an in-stream 410 ERROR event instead of slowing down
// writers; the client relists and watches again.
//
// Store thread only.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kube/apiserver/server/api/media.hpp"
#include "kube/apiserver/server/http/http_types.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"
#include "kube/apiserver/server/store/field_selector.hpp"
#include "kube/apiserver/server/store/label_selector.hpp"
#include "kube/apiserver/server/store/object_store.hpp"
#include "kube/apiserver/server/watch/converting_watch_stream.hpp"

namespace kueuepp::kube::server {

/// Which objects a list or watch selects.
struct ObjectFilter {
  std::string ns;  ///< "" for every namespace
  LabelSelector labels;
  FieldSelector fields;
  ResourceTypePtr view;  ///< for field values

  bool matches(const StoredObject& object) const;
};

struct WatcherSpec {
  BucketId bucket = 0;
  ResourceTypePtr view;
  Representation representation = Representation::Json;
  std::string include_object = "Metadata";
  ObjectFilter filter;
  bool bookmarks = false;
  /// Set when the CRD's conversion webhook converts this watch's objects: events go
  /// through it instead of to the sink.
  std::shared_ptr<ConvertingWatchStream> converting;
};

class WatchHub {
 public:
  using WatcherId = std::uint64_t;

  /// Registers a watcher that gets every change with rv > `start_rv`.
  WatcherId add(WatcherSpec spec, std::shared_ptr<StreamSink> sink, std::uint64_t start_rv);
  void remove(WatcherId id);

  /// Delivers a committed change to the watchers of its bucket.
  void publish(const Change& change);
  /// Sends a BOOKMARK at `rv` to every watcher that allows bookmarks.
  void bookmark(std::uint64_t rv);

  /// The resourceVersion of the latest change published: watchers have been sent every
  /// change up to it. With a write-ahead log it trails the store, whose latest changes
  /// may still wait for the disk, so it (not the store's) is what a bookmark may claim.
  std::uint64_t published_rv() const { return published_rv_; }
  /// After recovery: every change up to `rv` is durable and has nothing left to send.
  void set_published_rv(std::uint64_t rv) { published_rv_ = rv; }

  /// What a watcher with `filter` sees of `change`: the event type and object, or
  /// nullopt. Objects that start matching arrive as ADDED, objects that stop matching as
  /// DELETED with their previous content.
  static std::optional<std::pair<ChangeType, ObjectPtr>> route(const ObjectFilter& filter, const Change& change);

  std::size_t size() const { return watchers_.size(); }

 private:
  struct Watcher {
    WatcherId id = 0;
    WatcherSpec spec;
    std::shared_ptr<StreamSink> sink;
    std::uint64_t start_rv = 0;
    bool active = true;
  };
  void deliver(Watcher& w, std::shared_ptr<const std::string> bytes);
  void compact();

  std::unordered_map<BucketId, std::vector<std::shared_ptr<Watcher>>> by_bucket_;
  std::unordered_map<WatcherId, std::shared_ptr<Watcher>> watchers_;
  WatcherId next_id_ = 1;
  std::uint64_t published_rv_ = 0;
  bool publishing_ = false;
  bool needs_compact_ = false;
};

}  // namespace kueuepp::kube::server
