#include "kube/jobs/trainjob_jobset.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <utility>

#include "kube/client/resource.hpp"

namespace kueuepp::kube::jobs {

namespace {

constexpr std::string_view kTrainerGroup = "trainer.kubeflow.org";
constexpr std::string_view kTrainingRuntimeKind = "TrainingRuntime";
constexpr std::string_view kClusterTrainingRuntimeKind = "ClusterTrainingRuntime";
// The trainer's names (its pkg/constants).
constexpr std::string_view kAncestorTrainer = "trainer";
constexpr std::string_view kDatasetInitializer = "dataset-initializer";
constexpr std::string_view kModelInitializer = "model-initializer";
constexpr std::string_view kNodeName = "node";

/// Kubernetes' patchMergeKey of the merged lists a JobSet spec can hold (JobSet's
/// replicatedJobs, core/v1's pod spec and resources); empty: the list is replaced.
std::string_view merge_key_of(std::string_view field) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kKeys{{
      {"replicatedJobs", "name"},
      {"containers", "name"},
      {"initContainers", "name"},
      {"ephemeralContainers", "name"},
      {"env", "name"},
      {"volumes", "name"},
      {"volumeMounts", "mountPath"},
      {"volumeDevices", "devicePath"},
      {"ports", "containerPort"},
      {"schedulingGates", "name"},
      {"imagePullSecrets", "name"},
      {"claims", "name"},
      {"resourceClaims", "name"},
  }};
  for (const auto& [name, key] : kKeys) {
    if (name == field) return key;
  }
  return {};
}

std::int64_t number_or(const json::value* v, std::int64_t fallback) {
  return v != nullptr && v->is_number() ? v->to_number<std::int64_t>() : fallback;
}

std::string what_trainjob(const client::Object& trainjob) { return "TrainJob " + trainjob.key(); }

/// The runtime patches' trainingRuntimeSpec.template parts at `key` ("spec", "metadata").
std::vector<const json::value*> patch_parts(const client::Object& trainjob, std::string_view key) {
  std::vector<const json::value*> out;
  const json::value* patches = trainjob.find({"spec", "runtimePatches"});
  if (patches == nullptr || !patches->is_array()) return out;
  for (const json::value& p : patches->get_array()) {
    const json::value* part = json::find_path(p, {"trainingRuntimeSpec", "template", key});
    if (part != nullptr && part->is_object()) out.push_back(part);
  }
  return out;
}

/// The runtime template's metadata `field` (labels, annotations) with the patches' over it.
json::object propagated(const client::Object& trainjob, const client::Object& runtime, std::string_view field) {
  json::object out;
  if (const json::value* m = runtime.find({"spec", "template", "metadata", field}); m != nullptr && m->is_object()) {
    out = m->get_object();
  }
  for (const json::value* meta : patch_parts(trainjob, "metadata")) {
    const json::value* m = json::find(*meta, field);
    if (m == nullptr || !m->is_object()) continue;
    for (const auto& entry : m->get_object()) out[entry.key()] = entry.value();
  }
  return out;
}

/// The runtime patches merged into the spec, the runtime's replicated jobs in its order.
/// A patch of a replicated job the runtime has not is dropped (the trainer's webhook
/// refuses it: "must not have replicated job that doesn't exist in the runtime job template").
void apply_runtime_patches(const client::Object& trainjob, json::value& spec) {
  std::map<std::string, std::size_t, std::less<>> order;
  if (const json::value* rjobs = json::find(spec, "replicatedJobs"); rjobs != nullptr && rjobs->is_array()) {
    for (const json::value& r : rjobs->get_array()) order.emplace(json::get_string(r, "name"), order.size());
  }
  for (const json::value* patch : patch_parts(trainjob, "spec")) strategic_merge(spec, *patch);
  json::value* rjobs = json::find(spec, "replicatedJobs");
  if (rjobs == nullptr || !rjobs->is_array()) return;
  json::array& list = rjobs->as_array();
  json::array kept;
  for (json::value& r : list) {
    if (order.count(json::get_string(r, "name")) != 0) kept.push_back(std::move(r));
  }
  std::stable_sort(kept.begin(), kept.end(), [&](const json::value& a, const json::value& b) {
    return order.find(json::get_string(a, "name"))->second < order.find(json::get_string(b, "name"))->second;
  });
  list = std::move(kept);
}

std::string_view ancestor_of(const json::value& rjob) {
  const json::value* labels = json::find_path(rjob, {"template", "metadata", "labels"});
  return labels != nullptr && labels->is_object() ? json::get_string(*labels, kTrainJobAncestorLabel) : std::string_view{};
}

/// The replicated job's container named "node" (the trainer's), or null.
json::value* node_container(json::value& rjob) {
  json::value* at = &rjob;
  for (std::string_view key : {"template", "spec", "template", "spec", "containers"}) {
    at = json::find(*at, key);
    if (at == nullptr) return nullptr;
  }
  if (!at->is_array()) return nullptr;
  for (json::value& c : at->as_array()) {
    if (c.is_object() && json::get_string(c, "name") == kNodeName) return &c;
  }
  return nullptr;
}

/// The trainer's pod count for a replicated job (its runtime.Info pod set count after the
/// ML policy plugins ran).
std::int64_t pod_count(const json::value& rjob, const json::value* ml_policy, const json::value* trainer,
                       bool& trainer_counted) {
  const std::string_view name = json::get_string(rjob, "name");
  const std::string_view ancestor = ancestor_of(rjob);
  std::int64_t count = number_or(json::find_path(rjob, {"template", "spec", "parallelism"}), 1);
  if (ancestor == kAncestorTrainer && ml_policy != nullptr) count = number_or(json::find(*ml_policy, "numNodes"), 1);
  const json::value* num_nodes = trainer != nullptr ? json::find(*trainer, "numNodes") : nullptr;
  if (num_nodes == nullptr || !num_nodes->is_number()) return count;
  const std::int64_t wanted = num_nodes->to_number<std::int64_t>();
  const json::value* mpi = ml_policy != nullptr ? json::find(*ml_policy, "mpi") : nullptr;
  if (mpi != nullptr && mpi->is_object()) {
    if (name != kNodeName) return count;
    const json::value* as_node = json::find(*mpi, "runLauncherAsNode");
    // With runLauncherAsNode the launcher is one of the nodes.
    return as_node != nullptr && as_node->is_bool() && as_node->get_bool() ? std::max<std::int64_t>(wanted - 1, 1)
                                                                           : wanted;
  }
  // The other policies set the count of the first trainer job (FindPodSetByAncestor).
  if (ancestor != kAncestorTrainer || trainer_counted) return count;
  trainer_counted = true;
  return wanted;
}

bool runs_launcher_as_node(const json::value* ml_policy) {
  const json::value* flag = ml_policy != nullptr ? json::find_path(*ml_policy, {"mpi", "runLauncherAsNode"}) : nullptr;
  return flag != nullptr && flag->is_bool() && flag->get_bool();
}

/// spec.trainer's overrides on the trainer job's "node" container.
void apply_trainer(json::value& rjob, const json::value* trainer, const json::value* ml_policy) {
  if (trainer == nullptr || !trainer->is_object()) return;
  json::value* node = node_container(rjob);
  if (node == nullptr) return;
  const bool trainer_job = ancestor_of(rjob) == kAncestorTrainer;
  if (trainer_job) {
    for (std::string_view field : {"image", "command", "args"}) {
      if (const json::value* v = json::find(*trainer, field); v != nullptr && !v->is_null()) {
        node->as_object()[field] = *v;
      }
    }
  }
  const json::value* resources = json::find(*trainer, "resourcesPerNode");
  const bool takes_resources = (trainer_job && ml_policy != nullptr) ||
                               (runs_launcher_as_node(ml_policy) && json::get_string(rjob, "name") == kNodeName);
  if (resources == nullptr || !resources->is_object() || !takes_resources) return;
  json::value& into = node->as_object()["resources"];
  if (!into.is_object()) into = json::object{};
  strategic_merge(into, *resources, "resources");
}

}  // namespace

void strategic_merge(json::value& target, const json::value& patch, std::string_view field) {
  if (patch.is_object() && target.is_object()) {
    json::object& into = target.as_object();
    for (const auto& entry : patch.get_object()) {
      if (entry.value().is_null()) {
        into.erase(entry.key());
      } else if (json::value* existing = json::find(into, entry.key())) {
        strategic_merge(*existing, entry.value(), entry.key());
      } else {
        into[entry.key()] = entry.value();
      }
    }
    return;
  }
  const std::string_view key = merge_key_of(field);
  if (patch.is_array() && target.is_array() && !key.empty()) {
    json::array& into = target.as_array();
    for (const json::value& item : patch.get_array()) {
      const json::value* id = item.is_object() ? json::find(item, key) : nullptr;
      auto same = std::find_if(into.begin(), into.end(), [&](const json::value& t) {
        const json::value* tid = t.is_object() ? json::find(t, key) : nullptr;
        return id != nullptr && tid != nullptr && *tid == *id;
      });
      if (same != into.end()) {
        strategic_merge(*same, item);
      } else {
        into.push_back(item);
      }
    }
    return;
  }
  target = patch;
}

Expected<TrainingRuntimeRef> training_runtime_ref(const client::Object& trainjob) {
  std::string_view group = trainjob.string_at({"spec", "runtimeRef", "apiGroup"});
  std::string_view kind = trainjob.string_at({"spec", "runtimeRef", "kind"});
  const std::string_view name = trainjob.string_at({"spec", "runtimeRef", "name"});
  if (group.empty()) group = kTrainerGroup;
  if (kind.empty()) kind = kClusterTrainingRuntimeKind;
  if (group != kTrainerGroup || (kind != kTrainingRuntimeKind && kind != kClusterTrainingRuntimeKind)) {
    return fail(what_trainjob(trainjob) + ": unsupported runtime: " + std::string(kind) + "." + std::string(group) +
                "; spec.runtimeRef must name a TrainingRuntime or a ClusterTrainingRuntime of " +
                std::string(kTrainerGroup));
  }
  if (name.empty()) return fail(what_trainjob(trainjob) + " has no spec.runtimeRef.name; name its training runtime");
  TrainingRuntimeRef ref;
  ref.kind = std::string(kind);
  ref.name = std::string(name);
  if (kind == kTrainingRuntimeKind) ref.ns = std::string(trainjob.namespace_name());
  return ref;
}

Expected<json::value> trainjob_jobset_spec(const client::Object& trainjob, const client::Object& runtime) {
  const json::value* base = runtime.find({"spec", "template", "spec"});
  const json::value* base_jobs = base != nullptr ? json::find(*base, "replicatedJobs") : nullptr;
  if (base_jobs == nullptr || !base_jobs->is_array() || base_jobs->get_array().empty()) {
    return fail(std::string(runtime.kind()) + " " + runtime.key() + " of " + what_trainjob(trainjob) +
                " has no spec.template.spec.replicatedJobs; the trainer cannot build its JobSet");
  }
  json::value spec = *base;
  apply_runtime_patches(trainjob, spec);
  const json::value* ml_policy = runtime.find({"spec", "mlPolicy"});
  if (ml_policy != nullptr && !ml_policy->is_object()) ml_policy = nullptr;
  const json::value* trainer = trainjob.find({"spec", "trainer"});
  bool trainer_counted = false;
  for (json::value& rjob : spec.as_object()["replicatedJobs"].as_array()) {
    if (!rjob.is_object()) continue;
    const std::int64_t count = pod_count(rjob, ml_policy, trainer, trainer_counted);
    const std::string_view ancestor = ancestor_of(rjob);
    json::object& r = rjob.as_object();
    if (ancestor == kAncestorTrainer || ancestor == kDatasetInitializer || ancestor == kModelInitializer) {
      r["replicas"] = 1;
    } else if (json::find(r, "replicas") == nullptr) {
      r["replicas"] = 1;
    }
    json::value& job_spec = r["template"].as_object()["spec"];
    if (!job_spec.is_object()) job_spec = json::object{};
    job_spec.as_object()["parallelism"] = count;
    job_spec.as_object()["completions"] = count;
    apply_trainer(rjob, trainer, ml_policy);
  }
  return spec;
}

Expected<client::Object> trainjob_jobset(const client::Object& trainjob, const client::Object& runtime) {
  auto spec = trainjob_jobset_spec(trainjob, runtime);
  if (!spec) return unexpected(spec.error());
  spec->as_object()["suspend"] = trainjob.bool_at({"spec", "suspend"}).value_or(false);
  json::object metadata;
  metadata["name"] = trainjob.name();
  metadata["namespace"] = trainjob.namespace_name();
  if (json::object labels = propagated(trainjob, runtime, "labels"); !labels.empty()) metadata["labels"] = labels;
  if (json::object ann = propagated(trainjob, runtime, "annotations"); !ann.empty()) metadata["annotations"] = ann;
  const client::ResourceDescriptor& owner = client::resources::kTrainJob;
  metadata["ownerReferences"] = json::array{json::object{{"apiVersion", owner.api_version()},
                                                         {"kind", owner.kind},
                                                         {"name", trainjob.name()},
                                                         {"uid", trainjob.uid()},
                                                         {"controller", true},
                                                         {"blockOwnerDeletion", true}}};
  const client::ResourceDescriptor& jobset = client::resources::kJobSet;
  return client::Object(json::object{{"apiVersion", jobset.api_version()},
                                     {"kind", jobset.kind},
                                     {"metadata", std::move(metadata)},
                                     {"spec", std::move(*spec)}});
}

}  // namespace kueuepp::kube::jobs
