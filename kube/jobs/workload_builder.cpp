#include "kube/jobs/workload_builder.hpp"

#include <charconv>

#include "core/jobs/job_workload.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/jobs/job_pod_sets.hpp"
#include "kube/jobs/k8s_names.hpp"
#include "kube/jobs/workload_name.hpp"
#include "kube/objects/decoders.hpp"

namespace kueuepp::kube::jobs {

namespace {

std::optional<std::int64_t> parse_int(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

/// Kubernetes' built-in PriorityClasses, present in every cluster.
std::optional<std::int32_t> builtin_priority_class(std::string_view name) {
  if (name == "system-node-critical") return 2000001000;
  if (name == "system-cluster-critical") return 2000000000;
  return std::nullopt;
}

/// Go's strconv.ParseInt(s, 10, 32) > 0, as Kueue reads max-exec-time-seconds.
std::optional<std::int64_t> max_exec_time_seconds(const client::Object& job) {
  auto text = job.label(kMaxExecTimeSecondsLabel);
  if (!text) return std::nullopt;
  auto v = parse_int(*text);
  if (!v || *v <= 0 || *v > INT32_MAX) return std::nullopt;
  return v;
}

json::object workload_labels(const client::Object& job, const BuildOptions& options) {
  json::object labels;
  for (const auto& key : options.label_keys_to_copy) {
    if (auto v = job.label(key)) labels[key] = *v;
  }
  // Only a valid label value: Kueue skips the label otherwise.
  if (is_valid_label_value(job.uid()) && !job.uid().empty()) labels[kJobUidLabel] = job.uid();
  return labels;
}

json::object workload_annotations(const client::Object& job, const BuildOptions& options) {
  json::object annotations;
  for (const auto& [k, v] : job.annotations()) {
    if (std::string_view(k).starts_with(kProvReqAnnotationPrefix)) annotations[k] = v;
  }
  if (options.admission_gated_by) {
    if (auto gate = job.annotation(kAdmissionGatedByAnnotation); gate && !gate->empty()) {
      annotations[kAdmissionGatedByAnnotation] = *gate;
    }
  }
  return annotations;
}

json::value owner_reference(const client::Object& owner, const client::ResourceDescriptor& resource) {
  return json::object{{"apiVersion", resource.api_version()}, {"kind", resource.kind},
                      {"name", owner.name()},                 {"uid", owner.uid()},
                      {"controller", true},                   {"blockOwnerDeletion", true}};
}

}  // namespace

Status validate_owner_labels(const client::Object& owner, std::string_view kind) {
  const std::string who = std::string(kind) + " " + owner.key();
  if (auto queue = owner.label(kQueueNameLabel); queue && !is_dns1123_subdomain(*queue)) {
    return fail(who + ": label " + std::string(kQueueNameLabel) + "=" + quoted(*queue) +
                " must be a DNS-1123 subdomain (lowercase alphanumerics, '-' and '.')");
  }
  if (auto text = owner.label(kMaxExecTimeSecondsLabel)) {
    auto v = parse_int(*text);
    if (!v || *v > INT32_MAX) {
      return fail(who + ": label " + std::string(kMaxExecTimeSecondsLabel) + "=" + quoted(*text) +
                  " must be an integer");
    }
    if (*v <= 0) {
      return fail(who + ": label " + std::string(kMaxExecTimeSecondsLabel) + "=" + quoted(*text) +
                  " should be greater than 0");
    }
  }
  return {};
}

Status validate_job(const client::Object& job) {
  const std::string who = "Job " + job.key();
  if (auto labels = validate_owner_labels(job, "Job"); !labels) return labels;
  if (auto text = job.annotation(kMinParallelismAnnotation)) {
    auto v = parse_int(*text);
    std::int64_t pods = job_pods_count(job);
    if (!v) {
      return fail(who + ": annotation " + std::string(kMinParallelismAnnotation) + "=" + quoted(*text) +
                  " must be an integer");
    }
    if (*v <= 0 || *v >= pods) {
      return fail(who + ": annotation " + std::string(kMinParallelismAnnotation) + "=" + quoted(*text) +
                  " should be between 0 and " + std::to_string(pods - 1));
    }
  }
  if (auto text = job.annotation(kCompletionsEqualParallelismAnnotation)) {
    auto enabled = parse_go_bool(*text);
    if (!enabled) {
      return fail(who + ": annotation " + std::string(kCompletionsEqualParallelismAnnotation) + "=" +
                  quoted(*text) + " must be a boolean");
    }
    if (*enabled) {
      if (job.string_at({"spec", "completionMode"}) != "Indexed") {
        return fail(who + ": annotation " + std::string(kCompletionsEqualParallelismAnnotation) +
                    " should not be enabled for NonIndexed jobs");
      }
      if (job.int_at({"spec", "parallelism"}).value_or(1) != job.int_at({"spec", "completions"}).value_or(1)) {
        return fail(who + ": spec.completions should be equal to parallelism when " +
                    std::string(kCompletionsEqualParallelismAnnotation) + " annotation is true");
      }
    }
  }
  return {};
}

Expected<WorkloadPriority> owner_priority(const client::Object& owner, std::string_view kind,
                                          std::string_view pod_priority_class, std::string_view pod_field,
                                          const BuildOptions& options) {
  if (auto wpc = owner.label(kPriorityClassLabel); wpc && !wpc->empty()) {
    auto value = options.workload_priority_class ? options.workload_priority_class(*wpc) : std::nullopt;
    if (!value) {
      return fail(std::string(kind) + " " + owner.key() + ": WorkloadPriorityClass " + quoted(*wpc) + " (label " +
                  std::string(kPriorityClassLabel) + ") not found");
    }
    return WorkloadPriority{client::PriorityClassRef{std::string(kKueueGroup), "WorkloadPriorityClass", std::string(*wpc)},
                            *value};
  }
  if (!pod_priority_class.empty()) {
    auto value = options.priority_class ? options.priority_class(pod_priority_class) : std::nullopt;
    if (!value) value = builtin_priority_class(pod_priority_class);
    if (!value) {
      return fail(std::string(kind) + " " + owner.key() + ": PriorityClass " + quoted(pod_priority_class) + " (" +
                  std::string(pod_field) + ") not found");
    }
    return WorkloadPriority{client::PriorityClassRef{"scheduling.k8s.io", "PriorityClass", std::string(pod_priority_class)},
                            *value};
  }
  if (options.default_priority_class) {
    const auto& [name, value] = *options.default_priority_class;
    return WorkloadPriority{client::PriorityClassRef{"scheduling.k8s.io", "PriorityClass", name}, value};
  }
  return WorkloadPriority{};
}

Expected<WorkloadPriority> job_priority(const client::Object& job, const BuildOptions& options) {
  return owner_priority(job, "Job", job.string_at({"spec", "template", "spec", "priorityClassName"}),
                        "spec.template.spec.priorityClassName", options);
}

Expected<client::Object> build_workload(const client::Object& job, const BuildOptions& options) {
  if (auto valid = validate_job(job); !valid) return unexpected(valid.error());
  // The engine's Job contract decides queue, count and minCount (and rejects what it
  // cannot queue); the JSON below is its rendering in the Workload API.
  auto decoded = decode_job(job.json());
  if (!decoded) return unexpected(decoded.error());
  core::JobWorkloadOptions contract;
  contract.default_queue = options.default_queue;
  contract.managed_without_queue = options.managed_without_queue;
  contract.partial_admission = options.partial_admission;
  auto wl_model = core::workload_for_job(*decoded, contract);
  if (!wl_model) return unexpected(wl_model.error());

  auto pod_sets = job_pod_sets(job, PodSetOptions{options.partial_admission, options.topology_aware_scheduling});
  if (!pod_sets) return unexpected(pod_sets.error());
  auto priority = job_priority(job, options);
  if (!priority) return unexpected(priority.error());
  return assemble_workload(job, client::resources::kJob, wl_model->queue_name, std::move(*pod_sets), *priority, options);
}

Expected<std::string> owner_queue(const client::Object& owner, std::string_view kind, const BuildOptions& options) {
  std::string queue(owner.label(kQueueNameLabel).value_or(""));
  if (queue.empty()) queue = options.default_queue;
  if (queue.empty() && !options.managed_without_queue) {
    return fail(std::string(kind) + " " + owner.key() + " has no " + std::string(kQueueNameLabel) + " label");
  }
  return queue;
}

client::Object assemble_workload(const client::Object& owner, const client::ResourceDescriptor& owner_resource,
                                 std::string_view queue, json::array pod_sets, const WorkloadPriority& priority,
                                 const BuildOptions& options) {
  client::Object wl;
  wl.set_type(kWorkloadApiVersion, "Workload");
  json::object& meta = wl.json().as_object()["metadata"].emplace_object();
  meta["name"] = workload_name_for_owner(
      OwnerIdentity{owner.name(), owner.uid(), owner_resource.group, owner_resource.kind},
      options.short_workload_names ? kShortMaxWorkloadNameLength : kLongMaxWorkloadNameLength);
  meta["namespace"] = owner.namespace_name();
  if (auto labels = workload_labels(owner, options); !labels.empty()) meta["labels"] = std::move(labels);
  if (auto annotations = workload_annotations(owner, options); !annotations.empty()) {
    meta["annotations"] = std::move(annotations);
  }
  meta["finalizers"] = json::array{kResourceInUseFinalizer};
  meta["ownerReferences"] = json::array{owner_reference(owner, owner_resource)};

  json::object spec;
  // A job managed without a queue (manageJobsWithoutQueueName) gets a Workload without
  // one: the CRD refuses an empty name.
  if (!queue.empty()) spec["queueName"] = queue;
  spec["podSets"] = std::move(pod_sets);
  spec["priority"] = priority.value;
  if (priority.ref) {
    spec["priorityClassRef"] = json::object{
        {"group", priority.ref->group}, {"kind", priority.ref->kind}, {"name", priority.ref->name}};
  }
  if (auto seconds = max_exec_time_seconds(owner)) spec["maximumExecutionTimeSeconds"] = *seconds;
  wl.json().as_object()["spec"] = std::move(spec);
  return wl;
}

}  // namespace kueuepp::kube::jobs
