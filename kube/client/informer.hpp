#pragma once

// List+watch that survives everything a watch meets (client-go's Reflector): pages the
// initial list, watches from its resourceVersion with bookmarks, resumes after
// disconnects with jittered backoff, and on 410 Gone (HTTP status or in-stream ERROR
// event) re-lists and delivers the fresh state as a synthetic `Relisted` event (the
// consumer replaces its cache). The controller's actors consume these events.
//
// Callbacks run on the client's io thread, one at a time per informer.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/client/api_error.hpp"
#include "kube/client/backoff.hpp"
#include "kube/client/client.hpp"
#include "kube/client/object.hpp"
#include "kube/client/packed_object.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::kube::client {

struct InformerOptions {
  std::string namespace_name;  ///< "" = all namespaces
  std::string label_selector;
  std::string field_selector;
  std::int64_t page_size = 500;
  /// Reconnect / re-list backoff (client-go: 800 ms doubling to 30 s, full jitter).
  BackoffPolicy backoff{std::chrono::milliseconds(800), std::chrono::milliseconds(30'000), 2.0, 1.0};
  /// Server-side watch timeout, drawn from [min, 2*min) per watch so that many
  /// informers do not reconnect in lockstep.
  std::chrono::seconds min_watch_timeout{300};
  /// Watch events carry their objects packed (WatchOptions::packed_objects): `object`
  /// of an Added, Modified or Deleted event is then only apiVersion, kind and metadata,
  /// and `packed` the whole. Relisted items are always whole documents.
  bool packed_objects = false;
};

struct InformerEvent {
  enum class Type {
    Relisted,  ///< `items` is the complete current state (after start or after 410)
    Added,
    Modified,
    Deleted,
  };
  Type type = Type::Relisted;
  Object object;              ///< Added / Modified / Deleted (see InformerOptions::packed_objects)
  std::shared_ptr<const PackedObject> packed;  ///< `object` whole, when the watch packed it
  std::vector<Object> items;  ///< Relisted
  std::string resource_version;
};

class Informer {
 public:
  using EventHandler = std::function<void(InformerEvent)>;
  /// Told about every failure the informer recovers from (for logs and metrics).
  using ErrorHandler = std::function<void(const ApiError&)>;
  /// Told after the events that arrived together were delivered (none of the data
  /// received so far waits to be decoded), so that a consumer can pass them on together (a Relisted event is never held: consumers
  /// deliver what they gathered before it).
  using BatchEndHandler = std::function<void()>;

  /// Starts listing at once. The client must outlive the informer's activity (stop it,
  /// or shut the client down, first).
  static std::shared_ptr<Informer> start(Client& client, const ResourceDescriptor& resource,
                                         InformerOptions options, EventHandler on_event,
                                         ErrorHandler on_error = {}, BatchEndHandler on_batch_end = {});

  /// Stops the watch and any pending retry. Thread-safe, idempotent. An event already
  /// being delivered may finish; no later one starts.
  void stop();

  /// How many times the informer re-listed after the first list (410 recoveries).
  int relists() const;
  std::string resource_version() const;

  Informer(Client& client, const ResourceDescriptor& resource, InformerOptions options,
           EventHandler on_event, ErrorHandler on_error, BatchEndHandler on_batch_end = {});
  /// Stops the informer.
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::kube::client
