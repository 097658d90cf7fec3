#include "cmd/perf/object_builders.hpp"

#include <algorithm>

namespace kueuepp::cmd::perf {

namespace {

constexpr std::string_view kKueueApiVersion = "kueue.x-k8s.io/v1beta2";

json::object metadata(std::string_view name, json::object labels) {
  json::object m;
  m["name"] = name;
  if (!labels.empty()) m["labels"] = std::move(labels);
  return m;
}

json::object cleanup_labels() { return json::object{{kCleanupLabel, "true"}}; }

/// A pod of one container requesting `cpu`, as Kueue's runner makes them.
json::object one_container_pod_spec(core::Quantity cpu) {
  json::object container;
  container["name"] = "c";
  container["resources"] = json::object{{"requests", json::object{{"cpu", cpu.to_string()}}}};
  json::object pod_spec;
  pod_spec["restartPolicy"] = "Never";
  pod_spec["containers"] = json::array{std::move(container)};
  return pod_spec;
}

}  // namespace

std::string cohort_name(const CohortSet& set, std::int64_t index) {
  return set.class_name + "-" + std::to_string(index);
}

std::string cluster_queue_name(const QueuesSet& set, std::size_t set_index, std::int64_t index, std::string_view cohort) {
  return set.class_name + "-" + std::to_string(set_index) + "-" + std::to_string(index) + "-" + std::string(cohort);
}

std::string workload_name(const WorkloadTemplate& t, std::size_t set_index, std::int64_t repetition,
                          std::size_t template_index) {
  return t.class_name + "-" + std::to_string(set_index) + "-" + std::to_string(repetition) + "-" +
         std::to_string(template_index);
}

json::value resource_flavor_object(std::string_view name) {
  return json::object{{"apiVersion", kKueueApiVersion},
                      {"kind", "ResourceFlavor"},
                      {"metadata", metadata(name, cleanup_labels())},
                      {"spec", json::object{}}};
}

json::value cohort_object(std::string_view name) {
  return json::object{{"apiVersion", kKueueApiVersion},
                      {"kind", "Cohort"},
                      {"metadata", metadata(name, cleanup_labels())},
                      {"spec", json::object{}}};
}

json::value cluster_queue_object(const QueuesSet& set, std::string_view name, std::string_view cohort,
                                 std::string_view flavor) {
  json::object cpu;
  cpu["name"] = "cpu";
  cpu["nominalQuota"] = set.nominal_quota.to_string();
  if (set.borrowing_limit) cpu["borrowingLimit"] = set.borrowing_limit->to_string();
  json::object flavor_quotas;
  flavor_quotas["name"] = flavor;
  flavor_quotas["resources"] = json::array{std::move(cpu)};
  json::object group;
  group["coveredResources"] = json::array{"cpu"};
  group["flavors"] = json::array{std::move(flavor_quotas)};

  json::object preemption;
  if (!set.reclaim_within_cohort.empty()) preemption["reclaimWithinCohort"] = set.reclaim_within_cohort;
  if (!set.within_cluster_queue.empty()) preemption["withinClusterQueue"] = set.within_cluster_queue;

  json::object spec;
  spec["cohortName"] = cohort;
  spec["namespaceSelector"] = json::object{};
  spec["queueingStrategy"] = "BestEffortFIFO";
  spec["flavorFungibility"] = json::object{{"whenCanBorrow", "MayStopSearch"}, {"whenCanPreempt", "TryNextFlavor"}};
  spec["resourceGroups"] = json::array{std::move(group)};
  if (!preemption.empty()) spec["preemption"] = std::move(preemption);

  json::object labels = cleanup_labels();
  labels[kClassLabel] = set.class_name;
  return json::object{{"apiVersion", kKueueApiVersion},
                      {"kind", "ClusterQueue"},
                      {"metadata", metadata(name, std::move(labels))},
                      {"spec", std::move(spec)}};
}

json::value namespace_object(std::string_view name) {
  return json::object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", metadata(name, cleanup_labels())}};
}

json::value local_queue_object(std::string_view name, std::string_view ns, std::string_view cluster_queue) {
  json::object meta = metadata(name, {});
  meta["namespace"] = ns;
  return json::object{{"apiVersion", kKueueApiVersion},
                      {"kind", "LocalQueue"},
                      {"metadata", std::move(meta)},
                      {"spec", json::object{{"clusterQueue", cluster_queue}}}};
}

json::value workload_object(const WorkloadTemplate& t, std::string_view name, std::string_view ns,
                            std::string_view local_queue) {
  json::object pod_set;
  pod_set["name"] = "main";
  pod_set["count"] = 1;
  pod_set["template"] = json::object{{"spec", one_container_pod_spec(t.request)}};

  json::object labels;
  labels[kRunningTimeLabel] = std::to_string(t.runtime_ms);
  labels[kClassLabel] = t.class_name;
  json::object meta = metadata(name, std::move(labels));
  meta["namespace"] = ns;

  json::object spec;
  spec["queueName"] = local_queue;
  spec["priority"] = t.priority;
  spec["podSets"] = json::array{std::move(pod_set)};
  return json::object{{"apiVersion", kKueueApiVersion},
                      {"kind", "Workload"},
                      {"metadata", std::move(meta)},
                      {"spec", std::move(spec)}};
}

std::string priority_class_name(std::int32_t value) { return "perf-priority-" + std::to_string(value); }

json::value workload_priority_class_object(std::int32_t value) {
  return json::object{{"apiVersion", kKueueApiVersion},
                      {"kind", "WorkloadPriorityClass"},
                      {"metadata", metadata(priority_class_name(value), cleanup_labels())},
                      {"value", value},
                      {"description", "kueuepp perf: the priority of its JobSets"}};
}

namespace {

json::object replicated_job(std::string_view name, core::Quantity cpu) {
  json::object job_spec;
  job_spec["parallelism"] = 1;
  job_spec["completions"] = 1;
  job_spec["template"] = json::object{{"spec", one_container_pod_spec(cpu)}};
  json::object rj;
  rj["name"] = name;
  rj["replicas"] = 1;
  rj["template"] = json::object{{"spec", std::move(job_spec)}};
  return rj;
}

}  // namespace

json::value jobset_object(const WorkloadTemplate& t, std::string_view name, std::string_view ns,
                          std::string_view local_queue) {
  json::object labels;
  labels[kRunningTimeLabel] = std::to_string(t.runtime_ms);
  labels[kClassLabel] = t.class_name;
  labels["kueue.x-k8s.io/queue-name"] = local_queue;
  labels["kueue.x-k8s.io/priority-class"] = priority_class_name(t.priority);
  json::object meta = metadata(name, std::move(labels));
  meta["namespace"] = ns;

  // The driver takes half the request (rounded down to a milli-unit), the workers the rest,
  // so that the JobSet needs the quota its Workload would.
  const std::int64_t driver = t.request.milli() / 2;
  json::object spec;
  spec["suspend"] = true;
  spec["replicatedJobs"] = json::array{replicated_job("driver", core::Quantity::from_milli(driver)),
                                       replicated_job("workers", core::Quantity::from_milli(t.request.milli() - driver))};
  return json::object{{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                      {"kind", "JobSet"},
                      {"metadata", std::move(meta)},
                      {"spec", std::move(spec)}};
}

std::vector<std::int32_t> template_priorities(const GeneratorConfig& config) {
  std::vector<std::int32_t> out;
  for (const CohortSet& c : config.cohorts) {
    for (const QueuesSet& q : c.queues_sets) {
      for (const WorkloadsSet& ws : q.workloads_sets) {
        for (const WorkloadTemplate& t : ws.workloads) out.push_back(t.priority);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<CohortPlan> plan_cohorts(const GeneratorConfig& config) {
  std::vector<CohortPlan> out;
  for (const CohortSet& c : config.cohorts) {
    for (std::int64_t ci = 0; ci < c.count; ++ci) {
      CohortPlan cohort;
      cohort.name = cohort_name(c, ci);
      for (std::size_t qs = 0; qs < c.queues_sets.size(); ++qs) {
        const QueuesSet& set = c.queues_sets[qs];
        for (std::int64_t qi = 0; qi < set.count; ++qi) {
          cohort.queues.push_back(QueuePlan{cluster_queue_name(set, qs, qi, cohort.name), cohort.name, &set, qs, qi});
        }
      }
      out.push_back(std::move(cohort));
    }
  }
  return out;
}

}  // namespace kueuepp::cmd::perf
