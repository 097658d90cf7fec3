#include "core/jobs/job_workload.hpp"

#include <charconv>

namespace kueuepp::core {

std::int32_t job_pod_count(const BatchJob& job) {
  std::int32_t count = job.parallelism;
  if (job.completions && *job.completions < count) count = *job.completions;
  return count;
}

Expected<Workload> workload_for_job(const BatchJob& job, const JobWorkloadOptions& options) {
  std::string queue;
  if (auto it = job.labels.find(kQueueNameLabel); it != job.labels.end()) {
    queue = it->second;
  } else {
    queue = options.default_queue;
  }
  if (queue.empty() && !options.managed_without_queue) {
    return fail("Job " + job.ns + "/" + job.name + " has no " + kQueueNameLabel + " label");
  }
  Workload wl;
  wl.ns = job.ns;
  wl.name = options.workload_name.empty() ? job.name : options.workload_name;
  wl.uid = job.uid.empty() ? "" : job.uid + "-wl";
  wl.creation = job.creation;
  if (!job.uid.empty()) wl.labels[kJobUidLabel] = job.uid;
  wl.queue_name = queue;

  PodSet main = job.pod_template;
  main.name = "main";
  main.count = job_pod_count(job);
  if (auto it = job.annotations.find(kMinParallelismAnnotation);
      it != job.annotations.end() && options.partial_admission) {
    std::int32_t min = 0;
    const std::string& text = it->second;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), min);
    if (ec != std::errc() || p != text.data() + text.size()) {
      return fail("Job " + job.ns + "/" + job.name + ": annotation " + kMinParallelismAnnotation +
                  " must be an integer, got \"" + text + "\"");
    }
    if (min <= 0 || min >= main.count) {
      return fail("Job " + job.ns + "/" + job.name + ": annotation " + kMinParallelismAnnotation +
                  " must be greater than 0 and less than the pod count " + std::to_string(main.count));
    }
    main.min_count = min;
  }
  if (auto it = job.labels.find(kPriorityClassLabel); it != job.labels.end()) {
    wl.priority_class_ref = PriorityClassRef{PriorityClassRef::Kind::WorkloadPriorityClass, it->second};
  } else if (!main.priority_class_name.empty()) {
    wl.priority_class_ref = PriorityClassRef{PriorityClassRef::Kind::PriorityClass, main.priority_class_name};
  }
  wl.pod_sets.push_back(std::move(main));
  return wl;
}

}  // namespace kueuepp::core
