#pragma once

// batch/v1 Job: the fields a Kueue-style controller reads and writes (suspend,
// parallelism, the scheduling directives of the pod template, the queue label).

#include <optional>

#include "kube/client/kinds/scheduling.hpp"
#include "kube/client/object.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::kube::client {

inline constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";

class Job : public Object {
 public:
  using Object::Object;
  Job() = default;
  explicit Job(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kJob; }

  /// spec.suspend (false when absent).
  bool suspended() const;
  void set_suspend(bool suspend);
  std::optional<std::int64_t> parallelism() const;
  void set_parallelism(std::int64_t parallelism);
  std::optional<std::int64_t> completions() const;

  /// spec.template (null when absent).
  const json::value* pod_template() const;
  StringMap node_selector() const;
  /// Replaces spec.template.spec.nodeSelector (empty removes it).
  void set_node_selector(const StringMap& selector);
  std::vector<Toleration> tolerations() const;
  /// Replaces spec.template.spec.tolerations (empty removes it).
  void set_tolerations(const std::vector<Toleration>& tolerations);

  /// The `kueue.x-k8s.io/queue-name` label, if set.
  std::optional<std::string_view> queue_name() const { return label(kQueueNameLabel); }

  std::int64_t active() const { return int_at({"status", "active"}).value_or(0); }
  std::int64_t succeeded() const { return int_at({"status", "succeeded"}).value_or(0); }
  std::int64_t failed() const { return int_at({"status", "failed"}).value_or(0); }
  /// Condition Complete or Failed is True.
  bool finished() const { return condition_true("Complete") || condition_true("Failed"); }
};

}  // namespace kueuepp::kube::client
