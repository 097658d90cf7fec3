#pragma once

// What the admission webhooks need from the cluster, kept from the watch events the
// controller already receives, small: the namespaces holding a LocalQueue named
// "default", whether a WorkloadPriorityClass named "default" exists, and each
// namespace's labels (managedJobsNamespaceSelector). Pure, no CAF.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kube/webhook/cluster_facts.hpp"
#include "messages/cached_object.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::actors {

class WebhookFacts : public kube::webhook::ClusterFacts {
 public:
  /// The kinds it is fed: Namespaces, LocalQueues, WorkloadPriorityClasses.
  static bool wants(messages::ObjectKind kind);

  void relist(messages::ObjectKind kind, const std::vector<messages::CachedObject>& items);
  void apply(messages::ObjectKind kind, bool deleted, const messages::CachedObject& object);
  /// Every kind it is fed was listed once.
  bool synced() const { return listed_.size() == 3; }

  bool default_local_queue_exists(std::string_view ns) const override;
  bool default_priority_class_exists() const override { return default_priority_class_; }
  const core::Labels* namespace_labels(std::string_view ns) const override;

  std::size_t namespaces() const { return namespaces_.size(); }
  std::size_t default_queues() const { return default_queue_namespaces_.size(); }

 private:
  std::map<std::string, core::Labels, std::less<>> namespaces_;
  std::set<std::string, std::less<>> default_queue_namespaces_;
  bool default_priority_class_ = false;
  std::set<messages::ObjectKind> listed_;
};

}  // namespace kueuepp::actors
