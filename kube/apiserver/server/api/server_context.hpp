#pragma once

// ServerContext: the state every request handler and controller works on (store,
// registry, watch hub) and the commit pipeline every write goes through:
//
//   store.put/remove  ->  observers (CRD registry, garbage collector index, namespace
//   lifecycle; synchronous)  ->  journal (write-ahead log; asynchronous group commit)
//   ->  once durable: watchers, then the request's answer.
//
// So an answer is only sent for a durable write, and watchers see changes in
// resourceVersion order. Store thread only.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kube/apiserver/server/conversion/crd_converter.hpp"
#include "kube/apiserver/server/http/scheduler.hpp"
#include "kube/apiserver/server/registry/resource_registry.hpp"
#include "kube/apiserver/server/store/object_store.hpp"
#include "kube/apiserver/server/watch/watch_hub.hpp"

namespace kueuepp::kube::server {

/// Where committed changes are made durable (the write-ahead log).
class Journal {
 public:
  virtual ~Journal() = default;
  /// Records the change; `durable` runs on the store thread once it is on disk, in the
  /// order changes were appended.
  virtual void append(const Change& change, std::function<void()> durable) = 0;
};

class Admission;
class AggregatedApis;

class ServerContext {
 public:
  ServerContext(Scheduler& scheduler, std::size_t history_limit);

  Scheduler& scheduler;
  ObjectStore store;
  ResourceRegistry registry;
  WatchHub watches;
  Journal* journal = nullptr;
  /// Admission webhooks (null: none, as in tests of the store alone).
  Admission* admission = nullptr;
  /// How CRD conversion webhooks are called (no transport: none can be).
  ConversionCalls conversion_calls;
  /// API groups served by other servers (null: none).
  AggregatedApis* aggregated = nullptr;

  /// Called synchronously for every committed change, before it is journaled.
  using Observer = std::function<void(const Change&)>;
  void observe(Observer observer) { observers_.push_back(std::move(observer)); }

  /// Runs a change (just applied to the store) through the pipeline; `done` runs once it
  /// is durable and published.
  void commit(const Change& change, std::function<void()> done = {});

  BucketId bucket_of(const ResourceType& type) { return store.bucket(type.bucket); }

 private:
  std::vector<Observer> observers_;
};

}  // namespace kueuepp::kube::server
