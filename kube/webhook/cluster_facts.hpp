#pragma once

// What Kueue's webhooks read from the cluster besides the object under review: whether a
// namespace has a LocalQueue named "default", whether a WorkloadPriorityClass named
// "default" exists, and a namespace's labels (for managedJobsNamespaceSelector). The
// controller answers from its watch caches (actors/webhook_actor.hpp); tests from a table.

#include <string_view>

#include "core/model/labels.hpp"

namespace kueuepp::kube::webhook {

class ClusterFacts {
 public:
  virtual ~ClusterFacts() = default;
  virtual bool default_local_queue_exists(std::string_view ns) const = 0;
  virtual bool default_priority_class_exists() const = 0;
  /// The namespace's labels, or null when the namespace is not known (yet).
  virtual const core::Labels* namespace_labels(std::string_view ns) const = 0;
};

}  // namespace kueuepp::kube::webhook
