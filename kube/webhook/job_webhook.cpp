#include "kube/webhook/job_webhook.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kube/jobs/appwrapper.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/jobs/integration.hpp"
#include "kube/jobs/jobset.hpp"
#include "kube/jobs/k8s_names.hpp"
#include "kube/jobs/kubeflow_job.hpp"
#include "kube/jobs/ray_cluster.hpp"
#include "kube/jobs/ray_cluster_spec.hpp"
#include "kube/jobs/ray_job.hpp"
#include "kube/jobs/ray_service.hpp"
#include "kube/jobs/trainjob.hpp"
#include "kube/webhook/go_parse.hpp"
#include "kube/webhook/json_patch.hpp"
#include "kube/webhook/object_fields.hpp"

namespace kueuepp::kube::webhook {

namespace {

constexpr std::string_view kDefaultName = "default";
constexpr std::string_view kPrebuiltWorkloadLabel = "kueue.x-k8s.io/prebuilt-workload-name";
constexpr std::string_view kNamespaceNameLabel = "kubernetes.io/metadata.name";
constexpr std::string_view kDns1123SubdomainMessage =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const FieldPath kLabels = FieldPath("metadata").child("labels");
const FieldPath kAnnotations = FieldPath("metadata").child("annotations");

/// The request's namespace, owned: a view into the object would dangle once a defaulter
/// edits its copy (a label added can move the metadata's short strings; found by
/// fuzz/admission_review_fuzzer).
std::string request_namespace(const AdmissionRequest& request) {
  if (!request.ns.empty()) return std::string(request.ns);
  return std::string(string_at(request.object, {"metadata", "namespace"}));
}

std::string_view queue_name(const json::value& job) { return label_of(job, jobs::kQueueNameLabel).value_or(""); }

/// Kueue's ShouldValidateRayOrSparkJobOnUpdate.
bool ray_update_checked(const AdmissionRequest& request, const JobWebhookPolicy& policy) {
  if (policy.manage_jobs_without_queue_name || !queue_name(request.object).empty()) return true;
  return policy.validate_ray_updates && !queue_name(request.old_object).empty();
}
std::string_view priority_class(const json::value& job) { return label_of(job, jobs::kPriorityClassLabel).value_or(""); }

/// Where a kind keeps its suspend flag: spec.suspend (Job, JobSet, ...),
/// spec.runPolicy.suspend (the Kubeflow jobs and MPIJob) or spec.rayClusterConfig.suspend
/// (RayService: Kueue suspends its cluster, not the service).
enum class SuspendField { Spec, RunPolicy, RayClusterConfig };

std::vector<std::string_view> suspend_keys(SuspendField field) {
  switch (field) {
    case SuspendField::Spec: return {"spec", "suspend"};
    case SuspendField::RunPolicy: return {"spec", "runPolicy", "suspend"};
    case SuspendField::RayClusterConfig: return {"spec", "rayClusterConfig", "suspend"};
  }
  return {"spec", "suspend"};
}

/// Kueue's IsSuspended: the kind's suspend flag, unless the job is being stopped.
bool is_suspended(const json::value& job, SuspendField field = SuspendField::Spec) {
  const json::value* flag = &job;
  for (std::string_view key : suspend_keys(field)) {
    flag = flag->is_object() ? json::find(*flag, key) : nullptr;
    if (flag == nullptr) return false;
  }
  return flag->is_bool() && flag->get_bool() && annotation_of(job, jobs::kStoppingAnnotation).value_or("") != "true";
}

/// The JSON patch operation that sets the kind's suspend flag to true, adding the
/// objects on its way that the job does not have.
json::object suspend_operation(const json::value& job, SuspendField field) {
  const std::vector<std::string_view> keys = suspend_keys(field);
  const json::value* at = &job;
  std::string path;
  std::size_t depth = 0;
  for (; depth + 1 < keys.size(); ++depth) {
    const json::value* next = json::find(*at, keys[depth]);
    if (next == nullptr || !next->is_object()) break;
    at = next;
    path.append("/").append(keys[depth]);
  }
  json::object o;
  if (depth + 1 == keys.size()) {
    o["op"] = json::find(*at, keys.back()) != nullptr ? "replace" : "add";
    o["path"] = path + "/" + std::string(keys.back());
    o["value"] = true;
    return o;
  }
  // The first missing object holds the rest of the path down to suspend: true.
  json::value value = true;
  for (std::size_t i = keys.size() - 1; i > depth; --i) {
    json::object wrap;
    wrap[keys[i]] = std::move(value);
    value = std::move(wrap);
  }
  o["op"] = "add";
  o["path"] = path + "/" + std::string(keys[depth]);
  o["value"] = std::move(value);
  return o;
}

std::int64_t parallelism(const json::value& job) { return int_at(job, {"spec", "parallelism"}).value_or(1); }

/// Kueue's podsCount: parallelism, or completions when fewer.
std::int64_t pods_count(const json::value& job) {
  std::int64_t count = parallelism(job);
  if (auto completions = int_at(job, {"spec", "completions"}); completions && *completions < count) count = *completions;
  return count;
}

bool sync_completions(const json::value& job) {
  auto text = annotation_of(job, jobs::kCompletionsEqualParallelismAnnotation);
  if (!text) return false;
  auto parsed = go_parse_bool(*text);
  return std::holds_alternative<bool>(parsed) && std::get<bool>(parsed);
}

core::Labels namespace_labels_or_name(std::string_view ns, const ClusterFacts& facts) {
  if (const core::Labels* labels = facts.namespace_labels(ns)) return *labels;
  core::Labels only_name;
  only_name.emplace(std::string(kNamespaceNameLabel), std::string(ns));
  return only_name;
}

bool namespace_matches(std::string_view ns, const JobWebhookPolicy& policy, const ClusterFacts& facts) {
  if (!policy.managed_jobs_namespace_selector) return true;
  return policy.managed_jobs_namespace_selector->matches(namespace_labels_or_name(ns, facts));
}

/// The pattern of IsDNS1123Subdomain, without its length limit.
bool dns1123_subdomain_pattern(std::string_view v) {
  if (v.empty()) return false;
  std::size_t start = 0;
  while (start <= v.size()) {
    std::size_t end = v.find('.', start);
    if (end == std::string_view::npos) end = v.size();
    std::string_view part = v.substr(start, end - start);
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (part.empty() || !alnum(part.front()) || !alnum(part.back())) return false;
    if (!std::all_of(part.begin(), part.end(), [&](char c) { return alnum(c) || c == '-'; })) return false;
    start = end + 1;
  }
  return true;
}

/// ValidateLabelAsCRDName: the label, when present, is a DNS-1123 subdomain.
void check_crd_name_label(const json::value& job, std::string_view key, FieldErrors& out) {
  auto value = label_of(job, key);
  if (!value || jobs::is_dns1123_subdomain(*value)) return;
  std::string why;
  if (value->size() > 253) why = "must be no more than 253 characters";
  if (!dns1123_subdomain_pattern(*value)) {
    if (!why.empty()) why += ",";
    why += kDns1123SubdomainMessage;
  }
  out.push_back(invalid_string(kLabels.key(key), *value, why));
}

/// validateCreateForMaxExecTime.
void check_max_exec_time(const json::value& job, FieldErrors& out) {
  auto text = label_of(job, jobs::kMaxExecTimeSecondsLabel);
  if (!text) return;
  const FieldPath path = kLabels.key(jobs::kMaxExecTimeSecondsLabel);
  auto parsed = go_atoi(*text);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    out.push_back(invalid_string(path, *text, *error));
  } else if (std::get<std::int64_t>(parsed) <= 0) {
    out.push_back(invalid_int(path, std::get<std::int64_t>(parsed), "should be greater than 0"));
  }
}

/// validatePartialAdmissionCreate.
void check_partial_admission(const json::value& job, FieldErrors& out) {
  auto text = annotation_of(job, jobs::kMinParallelismAnnotation);
  if (!text) return;
  const FieldPath path = kAnnotations.key(jobs::kMinParallelismAnnotation);
  auto parsed = go_atoi(*text);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    out.push_back(invalid_string(path, *text, *error));
    return;
  }
  const std::int64_t v = std::get<std::int64_t>(parsed);
  const std::int64_t count = pods_count(job);
  // Kueue compares int32(v): a value beyond int32 wraps; such values are refused either way.
  if (v >= count || v <= 0) out.push_back(invalid_int(path, v, fmt::format("should be between 0 and {}", count - 1)));
}

/// validateSyncCompletionCreate.
void check_sync_completions(const json::value& job, FieldErrors& out) {
  auto text = annotation_of(job, jobs::kCompletionsEqualParallelismAnnotation);
  if (!text) return;
  const FieldPath path = kAnnotations.key(jobs::kCompletionsEqualParallelismAnnotation);
  auto parsed = go_parse_bool(*text);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    out.push_back(invalid_string(path, *text, *error));
    return;
  }
  if (!std::get<bool>(parsed)) return;
  const std::string_view mode = string_at(job, {"spec", "completionMode"});
  if (mode.empty() || mode == "NonIndexed") out.push_back(invalid_string(path, *text, "should not be enabled for NonIndexed jobs"));
  const auto completions = int_at(job, {"spec", "completions"});
  if (parallelism(job) != completions.value_or(1)) {
    out.push_back(invalid(FieldPath("spec").child("completions"), completions ? std::to_string(*completions) : "null",
                          fmt::format("should be equal to parallelism when {} annotation is true",
                                      jobs::kCompletionsEqualParallelismAnnotation)));
  }
}

/// jobframework.ValidateJobOnCreate plus the Job's own create checks.
void check_create(const json::value& job, FieldErrors& out) {
  check_crd_name_label(job, jobs::kQueueNameLabel, out);
  check_crd_name_label(job, kPrebuiltWorkloadLabel, out);
  check_max_exec_time(job, out);
}

/// jobframework.ValidateJobOnUpdate.
void check_update(const json::value& old_job, const json::value& job, std::string_view ns, const ClusterFacts& facts,
                  FieldErrors& out, SuspendField field = SuspendField::Spec) {
  const bool suspended = is_suspended(job, field);
  const FieldPath queue_path = kLabels.key(jobs::kQueueNameLabel);
  if (!suspended) check_immutable(queue_name(job), queue_name(old_job), queue_path, out);
  if (queue_name(job).empty() && !queue_name(old_job).empty() && facts.default_local_queue_exists(ns)) {
    out.push_back(invalid_string(queue_path, "", "queue-name must not be empty in namespace with default queue"));
  }
  if (suspended) {
    check_crd_name_label(job, kPrebuiltWorkloadLabel, out);
  } else {
    check_immutable(label_of(job, kPrebuiltWorkloadLabel).value_or(""), label_of(old_job, kPrebuiltWorkloadLabel).value_or(""),
                    kLabels.key(kPrebuiltWorkloadLabel), out);
  }
  if (!suspended || !is_suspended(old_job, field)) {
    check_immutable(label_of(job, jobs::kMaxExecTimeSecondsLabel).value_or(""),
                    label_of(old_job, jobs::kMaxExecTimeSecondsLabel).value_or(""),
                    kLabels.key(jobs::kMaxExecTimeSecondsLabel), out);
  }
  const FieldPath wpc_path = kLabels.key(jobs::kPriorityClassLabel);
  if (!suspended && priority_class(old_job).empty() && !priority_class(job).empty()) {
    out.push_back(invalid_string(wpc_path, priority_class(job), "WorkloadPriorityClass cannot be added to a non-suspended workload"));
  } else if (priority_class(job).empty() && !priority_class(old_job).empty()) {
    out.push_back(invalid_string(wpc_path, "", "WorkloadPriorityClass cannot be removed from a workload"));
  }
}

/// validatePartialAdmissionUpdate.
void check_partial_admission_update(const json::value& old_job, const json::value& job, FieldErrors& out) {
  if (annotation_of(old_job, jobs::kMinParallelismAnnotation) && !bool_at(old_job, {"spec", "suspend"}).value_or(false) &&
      parallelism(old_job) != parallelism(job)) {
    out.push_back(forbidden(FieldPath("spec").child("parallelism"),
                            "cannot change when partial admission is enabled and the job is not suspended"));
  }
  if (is_suspended(old_job) == is_suspended(job) && !is_suspended(job) && sync_completions(old_job) != sync_completions(job)) {
    out.push_back(forbidden(kAnnotations.key(jobs::kCompletionsEqualParallelismAnnotation),
                            "field is immutable while the job is not suspended"));
  }
}

}  // namespace

core::LabelSelector default_managed_jobs_namespace_selector(std::string_view kueue_namespace) {
  core::LabelSelector s;
  s.match_expressions.push_back(core::LabelSelectorRequirement{
      std::string(kNamespaceNameLabel), core::LabelSelectorRequirement::Op::NotIn,
      {"kube-system", std::string(kueue_namespace)}});
  return s;
}

bool owner_managed_by_kueue(const json::value& object, const JobWebhookPolicy& policy) {
  const json::value* refs = at_path(object, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array()) return false;
  for (const json::value& ref : refs->get_array()) {
    const json::value* controller = json::find(ref, "controller");
    if (controller == nullptr || !controller->is_bool() || !controller->get_bool()) continue;
    for (const std::string& framework : policy.frameworks) {
      const jobs::JobIntegration* parent = jobs::find_integration(framework);
      if (parent == nullptr) continue;
      if (json::get_string(ref, "kind") == parent->resource().kind &&
          json::get_string(ref, "apiVersion") == parent->resource().api_version()) {
        return true;
      }
    }
  }
  return false;
}

bool job_is_managed(const json::value& job, std::string_view ns, const JobWebhookPolicy& policy,
                    const ClusterFacts& facts) {
  if (!queue_name(job).empty()) return true;
  return policy.manage_jobs_without_queue_name && namespace_matches(ns, policy, facts);
}

namespace {

/// jobframework's defaults for a kind whose suspend flag is at `field`.
AdmissionResponse default_owner(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts, SuspendField field) {
  AdmissionResponse response = allowed(request.uid);
  if (request.operation != Operation::Create || !request.object.is_object()) return response;
  // A child of a managed parent runs under its parent's Workload.
  if (owner_managed_by_kueue(request.object, policy)) return response;
  json::value job = request.object;
  const std::string ns = request_namespace(request);
  // ApplyDefaultLocalQueue.
  if (queue_name(job).empty() && facts.default_local_queue_exists(ns) && namespace_matches(ns, policy, facts)) {
    set_metadata_entry(job, "labels", jobs::kQueueNameLabel, kDefaultName, response.patch);
  }
  // ApplyDefaultWorkloadPriorityClass (whether or not the Job is managed, as Kueue does).
  if (policy.workload_priority_class_defaulting && priority_class(job).empty() && facts.default_priority_class_exists()) {
    set_metadata_entry(job, "labels", jobs::kPriorityClassLabel, kDefaultName, response.patch);
  }
  // ApplyDefaultForSuspend. An object already being deleted is left alone
  // (SkipAncestorCheckForDeletedWorkloads).
  const bool deleting = at_path(job, {"metadata", "deletionTimestamp"}) != nullptr;
  if (!deleting && job_is_managed(job, ns, policy, facts) && !is_suspended(job, field)) {
    response.patch.emplace_back(suspend_operation(job, field));
  }
  return response;
}

}  // namespace

AdmissionResponse default_job(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                              const ClusterFacts& facts) {
  return default_owner(request, policy, facts, SuspendField::Spec);
}

FieldErrors validate_job(const AdmissionRequest& request, const ClusterFacts& facts) {
  FieldErrors errors;
  const json::value& job = request.object;
  if (!job.is_object()) return errors;
  check_create(job, errors);
  if (request.operation == Operation::Create) {
    check_partial_admission(job, errors);
    check_sync_completions(job, errors);
    return errors;
  }
  if (request.operation != Operation::Update || !request.old_object.is_object()) return errors;
  const json::value& old_job = request.old_object;
  if (annotation_of(job, jobs::kMinParallelismAnnotation) != annotation_of(old_job, jobs::kMinParallelismAnnotation)) {
    check_partial_admission(job, errors);
  }
  check_sync_completions(job, errors);
  const std::string ns = request_namespace(request);
  check_update(old_job, job, ns, facts, errors);
  check_partial_admission_update(old_job, job, errors);
  return errors;
}

namespace {

bool jobsets_integrated(const JobWebhookPolicy& policy) {
  return std::find(policy.frameworks.begin(), policy.frameworks.end(), jobs::kJobSetFramework) != policy.frameworks.end();
}

}  // namespace

AdmissionResponse default_jobset(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                 const ClusterFacts& facts) {
  if (!jobsets_integrated(policy)) return allowed(request.uid);
  return default_job(request, policy, facts);
}

FieldErrors validate_jobset(const AdmissionRequest& request, const ClusterFacts& facts) {
  FieldErrors errors;
  const json::value& jobset = request.object;
  if (!jobset.is_object()) return errors;
  check_create(jobset, errors);
  if (request.operation != Operation::Update || !request.old_object.is_object()) return errors;
  const std::string ns = request_namespace(request);
  check_update(request.old_object, jobset, ns, facts, errors);
  return errors;
}

AdmissionResponse review_jobset(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts) {
  if (!jobsets_integrated(policy)) return allowed(request.uid);
  FieldErrors errors = validate_jobset(request, facts);
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

AdmissionResponse review_job(const AdmissionRequest& request, const ClusterFacts& facts) {
  FieldErrors errors = validate_job(request, facts);
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

namespace {

/// The integrated Kubeflow kind of the object under review (null: not one, or its
/// framework is not in integrations.frameworks, and its webhooks let it be).
const jobs::KubeflowKind* integrated_kubeflow_kind(const AdmissionRequest& request, const JobWebhookPolicy& policy) {
  const std::string_view kind = string_at(request.object, {"kind"});
  const std::string_view api_version = string_at(request.object, {"apiVersion"});
  for (const jobs::KubeflowKind& k : jobs::kubeflow_kinds()) {
    if (k.resource->kind != kind || k.resource->api_version() != api_version) continue;
    const bool enabled =
        std::find(policy.frameworks.begin(), policy.frameworks.end(), k.framework) != policy.frameworks.end();
    return enabled ? &k : nullptr;
  }
  return nullptr;
}

}  // namespace

AdmissionResponse default_kubeflow_job(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                       const ClusterFacts& facts) {
  if (integrated_kubeflow_kind(request, policy) == nullptr) return allowed(request.uid);
  return default_owner(request, policy, facts, SuspendField::RunPolicy);
}

FieldErrors validate_kubeflow_job(const AdmissionRequest& request, const ClusterFacts& facts) {
  FieldErrors errors;
  const json::value& job = request.object;
  if (!job.is_object()) return errors;
  check_create(job, errors);
  if (request.operation != Operation::Update || !request.old_object.is_object()) return errors;
  const std::string ns = request_namespace(request);
  check_update(request.old_object, job, ns, facts, errors, SuspendField::RunPolicy);
  return errors;
}

AdmissionResponse review_kubeflow_job(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                      const ClusterFacts& facts) {
  if (integrated_kubeflow_kind(request, policy) == nullptr) return allowed(request.uid);
  FieldErrors errors = validate_kubeflow_job(request, facts);
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

}  // namespace kueuepp::kube::webhook

namespace kueuepp::kube::webhook {

namespace {

/// Whether the object under review is a `kind` of ray.io/v1 whose `framework` is integrated.
bool ray_kind_integrated(const AdmissionRequest& request, const JobWebhookPolicy& policy, std::string_view kind,
                         std::string_view framework) {
  const json::value& o = request.object;
  if (string_at(o, {"kind"}) != kind || string_at(o, {"apiVersion"}) != "ray.io/v1") return false;
  return std::find(policy.frameworks.begin(), policy.frameworks.end(), framework) != policy.frameworks.end();
}

bool rayjobs_integrated(const AdmissionRequest& request, const JobWebhookPolicy& policy) {
  return ray_kind_integrated(request, policy, "RayJob", jobs::kRayJobFramework);
}

bool rayclusters_integrated(const AdmissionRequest& request, const JobWebhookPolicy& policy) {
  return ray_kind_integrated(request, policy, "RayCluster", jobs::kRayClusterFramework);
}

bool rayservices_integrated(const AdmissionRequest& request, const JobWebhookPolicy& policy) {
  return ray_kind_integrated(request, policy, "RayService", jobs::kRayServiceFramework);
}

/// Go's %v of a map[string]string: "map[k1:v1 k2:v2]", keys sorted (boost's object keeps
/// insertion order, so they are sorted here).
std::string go_map(const json::value& m) {
  std::vector<std::pair<std::string, std::string>> entries;
  if (m.is_object()) {
    for (const auto& [k, v] : m.get_object()) {
      entries.emplace_back(std::string(k), v.is_string() ? std::string(v.get_string()) : json::dump(v));
    }
  }
  std::sort(entries.begin(), entries.end());
  std::string out = "map[";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ' ';
    out += entries[i].first + ":" + entries[i].second;
  }
  return out + "]";
}

/// raycluster.ValidateCreate for a cluster spec at `path`; `autoscaling_detail` is what the
/// kind says of in-tree autoscaling (Kueue allows it only for elastic jobs, behind an alpha
/// gate kueuepp does not implement).
void check_ray_cluster_spec(const json::value& spec, const FieldPath& path, FieldErrors& out,
                            std::string autoscaling_detail =
                                "a kueue managed job should only use autoscaling when workload slicing is enabled") {
  if (bool_at(spec, {"enableInTreeAutoscaling"}).value_or(false)) {
    out.push_back(invalid(path.child("enableInTreeAutoscaling"), "true", std::move(autoscaling_detail)));
  }
  const std::size_t pod_sets = jobs::ray_cluster_pod_set_count(spec);
  if (pod_sets > jobs::kMaxPodSets) {
    out.push_back(FieldError{FieldError::Type::TooMany, path.child("workerGroupSpecs").str(), std::to_string(pod_sets),
                             "must have at most " + std::to_string(jobs::kMaxPodSets) + " items"});
  }
  const json::array& groups = jobs::ray_worker_groups(spec);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (json::get_string(groups[i], "groupName") == jobs::kRayHeadPodSet) {
      out.push_back(forbidden(path.child("workerGroupSpecs").index(i).child("groupName"),
                              "\"head\" is reserved for the head group"));
    }
  }
}

/// The RayJob checks of Kueue's vrayjob for a managed RayJob.
void check_managed_rayjob(const json::value& job, FieldErrors& out) {
  const FieldPath spec_path("spec");
  const json::value* selector = at_path(job, {"spec", "clusterSelector"});
  const bool has_selector = selector != nullptr && selector->is_object() && !selector->get_object().empty();
  const json::value* cluster = at_path(job, {"spec", "rayClusterSpec"});
  const bool has_cluster = cluster != nullptr && cluster->is_object();
  if (has_selector && has_cluster) {
    out.push_back(invalid(spec_path.child("clusterSelector"), go_map(*selector),
                          "a kueue managed job should not use an existing cluster"));
    return;
  }
  // A RayJob on an existing cluster is not Kueue's to queue.
  if (has_selector) return;
  if (!has_cluster) {
    out.push_back(FieldError{FieldError::Type::Required, spec_path.child("rayClusterSpec").str(), {},
                             "rayClusterSpec is required for Kueue-managed jobs that don't use clusterSelector"});
    return;
  }
  // The cluster would otherwise hold the queue's resources after the job ended.
  if (!bool_at(job, {"spec", "shutdownAfterJobFinishes"}).value_or(false)) {
    out.push_back(invalid(spec_path.child("shutdownAfterJobFinishes"), "false",
                          "a kueue managed job should delete the cluster after finishing"));
  }
  check_ray_cluster_spec(*cluster, spec_path.child("rayClusterSpec"), out);
}

}  // namespace

AdmissionResponse default_rayjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                 const ClusterFacts& facts) {
  if (!rayjobs_integrated(request, policy)) return allowed(request.uid);
  return default_owner(request, policy, facts, SuspendField::Spec);
}

FieldErrors validate_rayjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                            const ClusterFacts& facts) {
  FieldErrors errors;
  const json::value& job = request.object;
  if (!job.is_object()) return errors;
  const bool managed = policy.manage_jobs_without_queue_name || !queue_name(job).empty();
  const bool update = request.operation == Operation::Update && request.old_object.is_object();
  if (update && !ray_update_checked(request, policy)) return errors;
  if (update) {
    const std::string ns = request_namespace(request);
    check_update(request.old_object, job, ns, facts, errors);
  }
  if (managed) check_managed_rayjob(job, errors);
  check_create(job, errors);
  return errors;
}

AdmissionResponse review_rayjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts) {
  if (!rayjobs_integrated(request, policy)) return allowed(request.uid);
  FieldErrors errors = validate_rayjob(request, policy, facts);
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

AdmissionResponse default_raycluster(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                     const ClusterFacts& facts) {
  if (!rayclusters_integrated(request, policy)) return allowed(request.uid);
  return default_owner(request, policy, facts, SuspendField::Spec);
}

FieldErrors validate_raycluster(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts) {
  FieldErrors errors;
  const json::value& cluster = request.object;
  if (!cluster.is_object()) return errors;
  const bool managed = policy.manage_jobs_without_queue_name || !queue_name(cluster).empty();
  const bool update = request.operation == Operation::Update && request.old_object.is_object();
  if (update && !ray_update_checked(request, policy)) return errors;
  if (update) {
    const std::string ns = request_namespace(request);
    check_update(request.old_object, cluster, ns, facts, errors);
  }
  if (managed) {
    const json::value* spec = at_path(cluster, {"spec"});
    static const json::value kEmpty = json::object{};
    check_ray_cluster_spec(spec != nullptr && spec->is_object() ? *spec : kEmpty, FieldPath("spec"), errors,
                           "a kueue-managed RayCluster can use autoscaling only as an elastic job: enable the "
                           "ElasticJobsViaWorkloadSlices feature gate and set the \"kueue.x-k8s.io/elastic-job\": "
                           "\"true\" annotation");
  }
  check_create(cluster, errors);
  return errors;
}

AdmissionResponse review_raycluster(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                    const ClusterFacts& facts) {
  if (!rayclusters_integrated(request, policy)) return allowed(request.uid);
  FieldErrors errors = validate_raycluster(request, policy, facts);
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

AdmissionResponse default_rayservice(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                     const ClusterFacts& facts) {
  if (!rayservices_integrated(request, policy)) return allowed(request.uid);
  return default_owner(request, policy, facts, SuspendField::RayClusterConfig);
}

FieldErrors validate_rayservice(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts) {
  FieldErrors errors;
  const json::value& service = request.object;
  if (!service.is_object()) return errors;
  const bool managed = policy.manage_jobs_without_queue_name || !queue_name(service).empty();
  const bool update = request.operation == Operation::Update && request.old_object.is_object();
  if (update && !ray_update_checked(request, policy)) return errors;
  if (update) {
    const std::string ns = request_namespace(request);
    check_update(request.old_object, service, ns, facts, errors, SuspendField::RayClusterConfig);
  }
  if (managed) {
    const json::value* cluster = at_path(service, {"spec", "rayClusterConfig"});
    static const json::value kEmpty = json::object{};
    // Kueue names the field by its Go name (RayClusterSpec) in these errors.
    check_ray_cluster_spec(cluster != nullptr && cluster->is_object() ? *cluster : kEmpty,
                           FieldPath("spec").child("rayClusterSpec"), errors);
  }
  check_create(service, errors);
  return errors;
}

AdmissionResponse review_rayservice(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                    const ClusterFacts& facts) {
  if (!rayservices_integrated(request, policy)) return allowed(request.uid);
  FieldErrors errors = validate_rayservice(request, policy, facts);
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

}  // namespace kueuepp::kube::webhook

namespace kueuepp::kube::webhook {

namespace {

bool trainjobs_integrated(const AdmissionRequest& request, const JobWebhookPolicy& policy) {
  const json::value& o = request.object;
  const client::ResourceDescriptor& r = client::resources::kTrainJob;
  if (string_at(o, {"kind"}) != r.kind || string_at(o, {"apiVersion"}) != r.api_version()) return false;
  return std::find(policy.frameworks.begin(), policy.frameworks.end(), jobs::kTrainJobFramework) !=
         policy.frameworks.end();
}

/// Whether spec.runtimePatches already holds Kueue's patch (a second one of the same
/// manager would be refused by the list's map key).
bool has_kueue_runtime_patch(const json::value& trainjob) {
  const json::value* patches = at_path(trainjob, {"spec", "runtimePatches"});
  if (patches == nullptr || !patches->is_array()) return false;
  for (const json::value& p : patches->get_array()) {
    if (json::get_string(p, "manager") == jobs::kKueueRuntimePatchManager) return true;
  }
  return false;
}

}  // namespace

AdmissionResponse default_trainjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                   const ClusterFacts& facts) {
  if (!trainjobs_integrated(request, policy)) return allowed(request.uid);
  AdmissionResponse response = default_owner(request, policy, facts, SuspendField::Spec);
  if (request.operation != Operation::Create || !response.allowed) return response;
  const json::value* spec = at_path(request.object, {"spec"});
  if (spec == nullptr || !spec->is_object() || has_kueue_runtime_patch(request.object)) return response;
  // Kueue's Default appends its runtime patch, which its start and stop rewrite.
  const json::value* patches = json::find(*spec, "runtimePatches");
  json::object op;
  op["op"] = "add";
  if (patches != nullptr && patches->is_array()) {
    op["path"] = "/spec/runtimePatches/-";
    op["value"] = jobs::kueue_runtime_patch();
  } else {
    op["path"] = "/spec/runtimePatches";
    op["value"] = json::array{jobs::kueue_runtime_patch()};
  }
  response.patch.emplace_back(std::move(op));
  return response;
}

FieldErrors validate_trainjob(const AdmissionRequest& request, const ClusterFacts& facts) {
  FieldErrors errors;
  const json::value& trainjob = request.object;
  if (!trainjob.is_object()) return errors;
  if (request.operation == Operation::Update && request.old_object.is_object()) {
    const std::string ns = request_namespace(request);
    check_update(request.old_object, trainjob, ns, facts, errors);
  }
  check_create(trainjob, errors);
  return errors;
}

AdmissionResponse review_trainjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                  const ClusterFacts& facts) {
  if (!trainjobs_integrated(request, policy)) return allowed(request.uid);
  FieldErrors errors = validate_trainjob(request, facts);
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

namespace {

bool appwrappers_integrated(const JobWebhookPolicy& policy) {
  return std::find(policy.frameworks.begin(), policy.frameworks.end(), jobs::kAppWrapperFramework) !=
         policy.frameworks.end();
}

}  // namespace

AdmissionResponse default_appwrapper(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                     const ClusterFacts& facts) {
  if (!appwrappers_integrated(policy)) return allowed(request.uid);
  return default_owner(request, policy, facts, SuspendField::Spec);
}

FieldErrors validate_appwrapper(const AdmissionRequest& request, const ClusterFacts& facts) {
  FieldErrors errors;
  const json::value& aw = request.object;
  if (!aw.is_object()) return errors;
  check_create(aw, errors);
  if (request.operation != Operation::Update || !request.old_object.is_object()) return errors;
  const std::string ns = request_namespace(request);
  check_update(request.old_object, aw, ns, facts, errors);
  return errors;
}

AdmissionResponse review_appwrapper(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                    const ClusterFacts& facts) {
  if (!appwrappers_integrated(policy)) return allowed(request.uid);
  FieldErrors errors = validate_appwrapper(request, facts);
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

}  // namespace kueuepp::kube::webhook
