#pragma once

// The objects Kueue's perf runner creates (runner/generator/generator.go), as JSON
// documents for the API, and their names:
//   ResourceFlavor  <flavor>                                   (default "rf")
//   Cohort          <cohortClass>-<i>                          (an explicit Cohort object
//                   with an empty spec; Kueue's runner leaves the cohort implicit, which
//                   the API treats the same)
//   ClusterQueue    <queueClass>-<queueSetIdx>-<i>-<cohort>    cpu quota on the flavor,
//                   preemption policies, class label; namespaceSelector {} and Kueue's
//                   test wrapper defaults (BestEffortFIFO, MayStopSearch/TryNextFlavor)
//   Namespace and LocalQueue, both named after their ClusterQueue
//   Workload        <wlClass>-<wlSetIdx>-<n>-<templateIdx> in the queue's namespace:
//                   spec.queueName, spec.priority, one pod set "main" of one pod
//                   requesting `request` cpu, labels for class and running time.
//   JobSet          (with --jobsets-every) the same name, labels and queue, in place of
//                   a Workload: two replicated jobs of one pod each, "driver" and
//                   "workers", sharing the `request` between them, created suspended;
//                   its priority through the WorkloadPriorityClass perf-priority-<value>.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/perf/generator_config.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::cmd::perf {

inline constexpr std::string_view kRunningTimeLabel = "kueue.x-k8s.io/performance-scheduler-running-ms";
inline constexpr std::string_view kClassLabel = "kueue.x-k8s.io/performance-scheduler-class";
inline constexpr std::string_view kCleanupLabel = "kueue.x-k8s.io/performance-scheduler-cleanup";

std::string cohort_name(const CohortSet& set, std::int64_t index);
std::string cluster_queue_name(const QueuesSet& set, std::size_t set_index, std::int64_t index, std::string_view cohort);
std::string workload_name(const WorkloadTemplate& t, std::size_t set_index, std::int64_t repetition,
                          std::size_t template_index);

json::value resource_flavor_object(std::string_view name);
json::value cohort_object(std::string_view name);
json::value cluster_queue_object(const QueuesSet& set, std::string_view name, std::string_view cohort,
                                 std::string_view flavor);
json::value namespace_object(std::string_view name);
json::value local_queue_object(std::string_view name, std::string_view ns, std::string_view cluster_queue);
json::value workload_object(const WorkloadTemplate& t, std::string_view name, std::string_view ns,
                            std::string_view local_queue);

/// The WorkloadPriorityClass a JobSet of priority `value` names.
std::string priority_class_name(std::int32_t value);
json::value workload_priority_class_object(std::int32_t value);
json::value jobset_object(const WorkloadTemplate& t, std::string_view name, std::string_view ns,
                          std::string_view local_queue);
/// Every distinct priority of the configuration's workload templates, ascending.
std::vector<std::int32_t> template_priorities(const GeneratorConfig& config);

/// One ClusterQueue to create (with its namespace and LocalQueue).
struct QueuePlan {
  std::string name;
  std::string cohort;
  const QueuesSet* set = nullptr;
  std::size_t set_index = 0;
  std::int64_t index = 0;
};

struct CohortPlan {
  std::string name;
  std::vector<QueuePlan> queues;
};

/// Every cohort and ClusterQueue of the configuration, in Kueue's naming. The plan
/// points into `config`, which must outlive it.
std::vector<CohortPlan> plan_cohorts(const GeneratorConfig& config);

}  // namespace kueuepp::cmd::perf
