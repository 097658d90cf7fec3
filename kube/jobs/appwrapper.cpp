#include "kube/jobs/appwrapper.hpp"

#include <charconv>
#include <optional>
#include <utility>

#include "core/quantity.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/jobs/equivalence.hpp"
#include "kube/jobs/merge_patch_diff.hpp"

namespace kueuepp::kube::jobs {

namespace {

constexpr std::string_view kKind = "AppWrapper";
constexpr std::string_view kPathRoot = "template";

// The AppWrapper project's pod set annotations for topology-aware scheduling.
constexpr std::string_view kTasPodIndexLabelAnnotation = "workload.codeflare.dev.appwrapper/tas-pod-index-label";
constexpr std::string_view kTasSubGroupIndexLabelAnnotation =
    "workload.codeflare.dev.appwrapper/tas-sub-group-index-label";
constexpr std::string_view kTasSubGroupCountAnnotation = "workload.codeflare.dev.appwrapper/tas-sub-group-count";

/// An integer JSON value (a whole double counts, as Go's unstructured ints do not, but
/// YAML tools write them so).
std::optional<std::int64_t> integer(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  if (v->is_double()) {
    const double d = v->get_double();
    if (d == static_cast<double>(static_cast<std::int64_t>(d))) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

const json::array& components_of(const client::Object& aw) {
  static const json::array kNone;
  const json::value* c = aw.find({"spec", "components"});
  return c != nullptr && c->is_array() ? c->get_array() : kNone;
}

bool appwrapper_suspended(const client::Object& aw) { return aw.bool_at({"spec", "suspend"}).value_or(false); }

std::string component_name(std::size_t index) { return "spec.components[" + std::to_string(index) + "]"; }

/// The AppWrapper project's AppWrapperPodSet list (declared or recorded in the status).
std::vector<AppWrapperPodSet> read_pod_sets(const json::value& list, std::size_t component) {
  std::vector<AppWrapperPodSet> out;
  if (!list.is_array()) return out;
  for (const json::value& ps : list.get_array()) {
    AppWrapperPodSet p;
    p.component = component;
    p.path = std::string(json::get_string(ps, "path"));
    p.replicas = integer(json::find(ps, "replicas")).value_or(1);
    if (const json::value* a = json::find(ps, "annotations"); a != nullptr && a->is_object()) {
      for (const auto& [k, v] : a->get_object()) {
        if (v.is_string()) p.annotations.emplace(std::string(k), std::string(v.get_string()));
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

/// inferReplicas: the integer at `path`, 1 when the field is absent.
Expected<std::int64_t> inferred_replicas(const json::value& component, const std::string& path) {
  const std::size_t dot = path.rfind('.');
  const json::value* parent = dot == std::string::npos ? &component : appwrapper_path_value(component, path.substr(0, dot));
  if (parent == nullptr || !parent->is_object()) return fail("no object at \"" + path.substr(0, dot) + "\"");
  const json::value* v = json::find(*parent, path.substr(dot + 1));
  if (v == nullptr || v->is_null()) return 1;
  auto n = integer(v);
  if (!n) return fail("\"" + path + "\" is not an integer");
  return *n;
}

/// The pod sets of the Ray cluster spec at `prefix` (head, then each worker group).
Expected<void> infer_ray(const json::value& component, std::size_t index, const std::string& prefix,
                         std::vector<AppWrapperPodSet>& out) {
  out.push_back(AppWrapperPodSet{index, prefix + "headGroupSpec.template", 1, {}});
  const json::value* workers = appwrapper_path_value(component, prefix + "workerGroupSpecs");
  if (workers == nullptr || !workers->is_array()) return {};
  for (std::size_t i = 0; i < workers->get_array().size(); ++i) {
    const std::string group = prefix + "workerGroupSpecs[" + std::to_string(i) + "].";
    if (appwrapper_path_value(component, group + "template") == nullptr) continue;
    auto replicas = inferred_replicas(component, group + "replicas");
    if (!replicas) return unexpected(replicas.error());
    out.push_back(AppWrapperPodSet{index, group + "template", *replicas, {}});
  }
  return {};
}

/// A Job's pod count at `prefix` ("template.spec."): parallelism (1) capped by completions.
std::int64_t job_pod_count(const json::value& component, const std::string& prefix) {
  std::int64_t count = integer(appwrapper_path_value(component, prefix + "parallelism")).value_or(1);
  if (auto completions = integer(appwrapper_path_value(component, prefix + "completions"));
      completions && *completions < count) {
    count = *completions;
  }
  return count;
}

/// InferPodSets: the pod sets of the kinds the AppWrapper project knows.
Expected<std::vector<AppWrapperPodSet>> infer_pod_sets(const json::value& component, std::size_t index) {
  const json::value* tmpl = json::find(component, kPathRoot);
  const std::string api_version(tmpl != nullptr ? json::get_string(*tmpl, "apiVersion") : "");
  const std::string kind(tmpl != nullptr ? json::get_string(*tmpl, "kind") : "");
  std::vector<AppWrapperPodSet> out;
  if (api_version == "batch/v1" && kind == "Job") {
    out.push_back(AppWrapperPodSet{index, "template.spec.template", job_pod_count(component, "template.spec."),
                                   {{std::string(kTasPodIndexLabelAnnotation), std::string(kJobCompletionIndexLabel)}}});
  } else if (api_version == "jobset.x-k8s.io/v1alpha2" && kind == "JobSet") {
    const json::value* rjobs = appwrapper_path_value(component, "template.spec.replicatedJobs");
    const std::size_t n = rjobs != nullptr && rjobs->is_array() ? rjobs->get_array().size() : 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string prefix = "template.spec.replicatedJobs[" + std::to_string(i) + "].";
      if (appwrapper_path_value(component, prefix + "template") == nullptr) continue;
      const std::int64_t replicas = integer(appwrapper_path_value(component, prefix + "replicas")).value_or(1);
      out.push_back(AppWrapperPodSet{index, prefix + "template.spec.template",
                                     replicas * job_pod_count(component, prefix + "template.spec."),
                                     {{std::string(kTasPodIndexLabelAnnotation), std::string(kJobCompletionIndexLabel)},
                                      {std::string(kTasSubGroupIndexLabelAnnotation), "jobset.sigs.k8s.io/job-index"},
                                      {std::string(kTasSubGroupCountAnnotation), std::to_string(replicas)}}});
    }
  } else if (api_version == "kubeflow.org/v1" && kind == "PyTorchJob") {
    for (std::string_view type : {"Master", "Worker"}) {
      const std::string prefix = "template.spec.pytorchReplicaSpecs." + std::string(type) + ".";
      if (appwrapper_path_value(component, prefix + "template") == nullptr) continue;
      auto replicas = inferred_replicas(component, prefix + "replicas");
      if (!replicas) return unexpected(replicas.error());
      out.push_back(AppWrapperPodSet{index, prefix + "template", *replicas,
                                     {{std::string(kTasPodIndexLabelAnnotation), "training.kubeflow.org/replica-index"}}});
    }
  } else if (api_version == "ray.io/v1" && (kind == "RayCluster" || kind == "RayJob")) {
    auto added = infer_ray(component, index, kind == "RayCluster" ? "template.spec." : "template.spec.rayClusterSpec.", out);
    if (!added) return unexpected(added.error());
  } else if (api_version == "v1" && kind == "Pod") {
    out.push_back(AppWrapperPodSet{index, "template", 1, {}});
  } else if (api_version == "apps/v1" && (kind == "Deployment" || kind == "StatefulSet")) {
    if (appwrapper_path_value(component, "template.spec.template") != nullptr) {
      auto replicas = inferred_replicas(component, "template.spec.replicas");
      if (!replicas) return unexpected(replicas.error());
      out.push_back(AppWrapperPodSet{index, "template.spec.template", *replicas, {}});
    }
  } else {
    return fail("it declares no podSets and its kind (" + (kind.empty() ? std::string("none") : kind) + " " +
                api_version + ") is not one whose pod sets can be inferred: declare them in podSets");
  }
  return out;
}

/// A resource list with every quantity in canonical text, rounded up to milli-units.
Expected<json::object> canonical_resources(const json::value& list, const std::string& field) {
  json::object out;
  if (!list.is_object()) return out;
  for (const auto& [name, v] : list.get_object()) {
    std::string text;
    if (v.is_string()) {
      text = std::string(v.get_string());
    } else if (v.is_number()) {
      char buf[64];
      auto r = v.is_double() ? std::to_chars(buf, buf + sizeof buf, v.get_double())
               : v.is_int64() ? std::to_chars(buf, buf + sizeof buf, v.get_int64())
                              : std::to_chars(buf, buf + sizeof buf, v.get_uint64());
      text.assign(buf, r.ptr);
    }
    auto q = core::Quantity::parse(text);
    if (!q) return fail(field + "." + std::string(name) + ": " + q.error().message);
    out[name] = q->to_string();
  }
  return out;
}

/// getImageTag: the image's tag, "latest" when it has neither a tag nor a digest.
std::string_view image_tag(std::string_view image) {
  const std::size_t at = image.find('@');
  const bool digest = at != std::string_view::npos;
  std::string_view name = image.substr(0, at);
  const std::size_t slash = name.rfind('/');
  const std::size_t colon = name.find(':', slash == std::string_view::npos ? 0 : slash + 1);
  std::string_view tag = colon == std::string_view::npos ? std::string_view{} : name.substr(colon + 1);
  return tag.empty() && !digest ? std::string_view("latest") : tag;
}

bool non_empty(const json::value* v) {
  if (v == nullptr || v->is_null()) return false;
  if (v->is_object()) return !v->get_object().empty();
  if (v->is_array()) return !v->get_array().empty();
  if (v->is_string()) return !v->get_string().empty();
  return true;
}

/// copyContainers: the fields Kueue compares, with kube-apiserver's defaults.
Expected<json::array> kueue_containers(const json::value& list, const std::string& field) {
  json::array out;
  if (!list.is_array()) return out;
  for (std::size_t i = 0; i < list.get_array().size(); ++i) {
    const json::value& c = list.get_array()[i];
    const std::string at = field + "[" + std::to_string(i) + "]";
    json::object dst;
    dst["name"] = json::get_string(c, "name");
    if (const json::value* image = json::find(c, "image"); non_empty(image)) dst["image"] = *image;
    for (std::string_view key : {"command", "args"}) {
      if (const json::value* v = json::find(c, key); non_empty(v)) dst[key] = *v;
    }
    json::object resources;
    for (std::string_view key : {"requests", "limits"}) {
      const json::value* list_at = json::find_path(c, {"resources", key});
      if (!non_empty(list_at)) continue;
      auto canonical = canonical_resources(*list_at, at + ".resources." + std::string(key));
      if (!canonical) return unexpected(canonical.error());
      resources[key] = std::move(*canonical);
    }
    dst["resources"] = std::move(resources);
    const std::string_view path = json::get_string(c, "terminationMessagePath");
    dst["terminationMessagePath"] = path.empty() ? std::string_view("/dev/termination-log") : path;
    const std::string_view policy = json::get_string(c, "terminationMessagePolicy");
    dst["terminationMessagePolicy"] = policy.empty() ? std::string_view("File") : policy;
    std::string_view pull = json::get_string(c, "imagePullPolicy");
    if (pull.empty()) pull = image_tag(json::get_string(c, "image")) == "latest" ? "Always" : "IfNotPresent";
    dst["imagePullPolicy"] = pull;
    if (const json::value* sc = json::find(c, "securityContext"); sc != nullptr && sc->is_object()) {
      dst["securityContext"] = *sc;
    }
    out.push_back(std::move(dst));
  }
  return out;
}

/// GetPodTemplateSpec: the pod template at a pod set's path reduced to what Kueue
/// compares, as kube-apiserver would have defaulted it.
Expected<json::object> kueue_pod_template(const json::value& at, const std::string& field) {
  const json::value* spec = json::find(at, "spec");
  if (spec == nullptr || !spec->is_object()) return fail("content at " + field + " does not contain a spec");
  json::object metadata;
  for (std::string_view key : {"labels", "annotations"}) {
    const json::value* m = json::find_path(at, {"metadata", key});
    if (m == nullptr || !m->is_object()) continue;
    json::object strings;
    for (const auto& [k, v] : m->get_object()) {
      if (v.is_string()) strings[k] = v;
    }
    if (!strings.empty()) metadata[key] = std::move(strings);
  }
  json::object dst;
  if (const json::value* init = json::find(*spec, "initContainers"); non_empty(init)) {
    auto copied = kueue_containers(*init, field + ".spec.initContainers");
    if (!copied) return unexpected(copied.error());
    dst["initContainers"] = std::move(*copied);
  }
  const json::value* containers = json::find(*spec, "containers");
  auto copied = kueue_containers(containers != nullptr ? *containers : json::value(json::array{}),
                                 field + ".spec.containers");
  if (!copied) return unexpected(copied.error());
  dst["containers"] = std::move(*copied);
  auto defaulted = [&](std::string_view key, std::string_view fallback) {
    const std::string_view v = json::get_string(*spec, key);
    dst[key] = v.empty() ? fallback : v;
  };
  defaulted("restartPolicy", "Always");
  // As the AppWrapper project writes it: the default only when the pod says nothing.
  if (json::find(*spec, "terminationGracePeriodSeconds") == nullptr) dst["terminationGracePeriodSeconds"] = 30;
  defaulted("dnsPolicy", "ClusterFirst");
  for (std::string_view key : {"nodeSelector", "nodeName", "affinity", "tolerations", "priorityClassName",
                               "topologySpreadConstraints"}) {
    if (const json::value* v = json::find(*spec, key); non_empty(v)) dst[key] = *v;
  }
  const json::value* security = json::find(*spec, "securityContext");
  dst["securityContext"] = security != nullptr && security->is_object() ? *security : json::value(json::object{});
  defaulted("schedulerName", "default-scheduler");
  defaulted("preemptionPolicy", "PreemptLowerPriority");
  if (const json::value* overhead = json::find(*spec, "overhead"); non_empty(overhead)) {
    auto canonical = canonical_resources(*overhead, field + ".spec.overhead");
    if (!canonical) return unexpected(canonical.error());
    dst["overhead"] = std::move(*canonical);
  }
  json::object out;
  if (!metadata.empty()) out["metadata"] = std::move(metadata);
  out["spec"] = std::move(dst);
  return out;
}

/// The topology request of one pod set: the template's topology annotations, with the
/// pod index and sub-group labels the AppWrapper pod set's annotations name.
Expected<std::optional<json::object>> topology_request_of(const client::Object& aw, const json::value& tmpl,
                                                          const AppWrapperPodSet& ps) {
  auto req = topology_request(aw, tmpl);
  if (!req) return unexpected(req.error());
  req->erase("podIndexLabel");
  if (auto it = ps.annotations.find(std::string(kTasPodIndexLabelAnnotation)); it != ps.annotations.end()) {
    (*req)["podIndexLabel"] = it->second;
  }
  if (auto it = ps.annotations.find(std::string(kTasSubGroupIndexLabelAnnotation)); it != ps.annotations.end()) {
    (*req)["subGroupIndexLabel"] = it->second;
  }
  if (auto it = ps.annotations.find(std::string(kTasSubGroupCountAnnotation)); it != ps.annotations.end()) {
    // Kueue logs a malformed count and leaves it out.
    std::int64_t count = 0;
    auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), count);
    if (ec == std::errc{} && end == it->second.data() + it->second.size()) (*req)["subGroupCount"] = count;
  }
  if (req->empty()) return std::optional<json::object>{};
  return std::optional<json::object>{std::move(*req)};
}

/// AppWrapperPodSetInfo: what Kueue hands the AppWrapper controller for one pod set.
json::object appwrapper_pod_set_info(const PodSetInfo& info) {
  json::object out;
  auto map = [&](std::string_view key, const client::StringMap& m) {
    if (m.empty()) return;
    json::object o;
    for (const auto& [k, v] : m) o[k] = v;
    out[key] = std::move(o);
  };
  map("annotations", info.annotations);
  map("labels", info.labels);
  map("nodeSelector", info.node_selector);
  if (!info.tolerations.empty()) out["tolerations"] = info.tolerations;
  if (!info.scheduling_gates.empty()) out["schedulingGates"] = info.scheduling_gates;
  return out;
}

/// The PriorityClass the pods ask for: the first pod set's template that names one, and
/// where it is named.
std::pair<std::string, std::string> pods_priority_class(const client::Object& aw) {
  auto places = appwrapper_pod_set_places(aw);
  if (!places) return {};
  for (const AppWrapperPodSet& ps : *places) {
    const json::value* at = appwrapper_path_value(components_of(aw)[ps.component], ps.path);
    const json::value* name = at != nullptr ? json::find_path(*at, {"spec", "priorityClassName"}) : nullptr;
    if (name != nullptr && name->is_string() && !name->get_string().empty()) {
      return {std::string(name->get_string()),
              component_name(ps.component) + "." + ps.path + ".spec.priorityClassName"};
    }
  }
  return {};
}

class AppWrapperIntegration final : public JobIntegration {
 public:
  std::string_view framework() const override { return kAppWrapperFramework; }
  const client::ResourceDescriptor& resource() const override { return client::resources::kAppWrapper; }

  bool suspended(const client::Object& aw) const override { return appwrapper_suspended(aw); }
  // Suspended and cleared in one write: never half stopped.
  bool stopping(const client::Object&) const override { return false; }
  bool active(const client::Object& aw) const override { return aw.condition_true("QuotaReserved"); }

  std::optional<JobFinish> finished(const client::Object& aw) const override {
    const std::string_view phase = aw.string_at({"status", "phase"});
    if (phase == "Succeeded") return JobFinish{true, "AppWrapper finished successfully"};
    // A failed AppWrapper still holds its quota while its resources are being deleted.
    if (phase == "Failed" && !aw.condition_true("ResourcesDeployed")) return JobFinish{false, "AppWrapper failed"};
    return std::nullopt;
  }

  bool pods_ready(const client::Object& aw) const override { return aw.condition_true("PodsReady"); }

  Expected<StartResult, InjectionError> start(const client::Object& aw, const client::Object& workload,
                                              const FlavorLookup& flavors) const override {
    const json::value* admission = workload.find({"status", "admission"});
    if (admission == nullptr || admission->is_null()) {
      return unexpected(InjectionError{
          "Workload " + workload.key() + " has no admission; AppWrapper " + aw.key() + " cannot start", false});
    }
    auto places = appwrapper_pod_set_places(aw);
    if (!places) return unexpected(InjectionError{places.error().message, true});
    auto infos = pod_set_infos_from_admission(workload, flavors);
    if (!infos) return unexpected(std::move(infos).error());
    if (infos->size() != places->size()) {
      return unexpected(InjectionError{"invalid podset infos: expecting " + std::to_string(places->size()) +
                                           " podsets, got " + std::to_string(infos->size()),
                                       true});
    }
    StartResult out;
    out.job = aw;
    out.job.ensure({"spec", "suspend"}) = false;
    json::array& components = out.job.ensure({"spec", "components"}).as_array();
    std::vector<json::array> per_component(components.size());
    for (std::size_t i = 0; i < places->size(); ++i) {
      per_component[(*places)[i].component].push_back(appwrapper_pod_set_info((*infos)[i]));
    }
    for (std::size_t c = 0; c < components.size(); ++c) {
      if (!components[c].is_object()) continue;
      if (per_component[c].empty()) {
        components[c].as_object().erase("podSetInfos");
      } else {
        components[c].as_object()["podSetInfos"] = std::move(per_component[c]);
      }
    }
    out.changed = !(out.job.json() == aw.json());
    out.patch = merge_patch_diff(aw.json(), out.job.json());
    out.message = "Admitted by clusterQueue " + std::string(workload.string_at({"status", "admission", "clusterQueue"}));
    return out;
  }

  // One write: spec.suspend=true and every component's podSetInfos cleared
  // (ClearPodSetInfos: the wrapped templates were never changed).
  std::optional<StopStep> stop(const client::Object& aw, const client::Object*) const override {
    client::Object stopped = aw;
    stopped.ensure({"spec", "suspend"}) = true;
    json::value* spec = json::find(stopped.json(), "spec");
    json::value* components = spec != nullptr ? json::find(*spec, "components") : nullptr;
    if (components != nullptr && components->is_array()) {
      for (json::value& c : components->as_array()) {
        if (c.is_object()) c.as_object().erase("podSetInfos");
      }
    }
    if (stopped.json() == aw.json()) return std::nullopt;
    return StopStep{merge_patch_diff(aw.json(), stopped.json()), false, "suspended", true};
  }

  Expected<client::Object> build_workload(const client::Object& aw, const BuildOptions& options) const override {
    if (auto valid = validate_appwrapper(aw); !valid) return unexpected(valid.error());
    auto queue = owner_queue(aw, kKind, options);
    if (!queue) return unexpected(queue.error());
    auto pod_sets = appwrapper_pod_sets(aw, PodSetOptions{options.partial_admission, options.topology_aware_scheduling});
    if (!pod_sets) return unexpected(pod_sets.error());
    auto prio = priority(aw, options);
    if (!prio) return unexpected(prio.error());
    return assemble_workload(aw, resource(), *queue, std::move(*pod_sets), *prio, options);
  }

  Expected<WorkloadPriority> priority(const client::Object& aw, const BuildOptions& options) const override {
    auto [name, field] = pods_priority_class(aw);
    return owner_priority(aw, kKind, name, field, options);
  }

  bool equivalent(const client::Object& aw, const client::Object& workload,
                  const FlavorLookup& flavors) const override {
    auto pod_sets = appwrapper_pod_sets(aw);
    if (!pod_sets) return false;
    return equivalent_pod_sets_to_workload(aw, json::value(std::move(*pod_sets)), appwrapper_suspended(aw), workload,
                                           flavors);
  }
};

template <class Value>
Value* resolve(Value& root, std::string_view path) {
  if (!path.starts_with(kPathRoot)) return nullptr;
  Value* cursor = json::find(root, kPathRoot);
  std::string_view rest = path.substr(kPathRoot.size());
  while (cursor != nullptr && !rest.empty()) {
    if (rest.front() == '[') {
      const std::size_t end = rest.find(']');
      if (end == std::string_view::npos || !cursor->is_array()) return nullptr;
      std::size_t index = 0;
      auto [ptr, ec] = std::from_chars(rest.data() + 1, rest.data() + end, index);
      if (ec != std::errc{} || ptr != rest.data() + end) return nullptr;
      auto& items = cursor->as_array();
      if (index >= items.size()) return nullptr;
      cursor = &items[index];
      rest.remove_prefix(end + 1);
    } else if (rest.front() == '.') {
      rest.remove_prefix(1);
      const std::size_t end = rest.find_first_of(".[");
      const std::string_view key = rest.substr(0, end);
      if (key.empty() || !cursor->is_object()) return nullptr;
      cursor = json::find(*cursor, key);
      rest.remove_prefix(key.size());
    } else {
      return nullptr;
    }
  }
  return cursor;
}

}  // namespace

const json::value* appwrapper_path_value(const json::value& component, std::string_view path) {
  return resolve(component, path);
}

json::value* appwrapper_path_value(json::value& component, std::string_view path) { return resolve(component, path); }

Expected<std::vector<AppWrapperPodSet>> appwrapper_pod_set_places(const client::Object& aw) {
  const json::array& components = components_of(aw);
  if (components.empty()) return fail("AppWrapper " + aw.key() + " has no spec.components; Kueue cannot queue it");
  // Recorded by the AppWrapper controller for every component: authoritative (it keeps
  // them apart from the spec so that a user's apply does not change them).
  const json::value* recorded = aw.find({"status", "componentStatus"});
  const bool use_status =
      recorded != nullptr && recorded->is_array() && recorded->get_array().size() == components.size();
  std::vector<AppWrapperPodSet> out;
  for (std::size_t i = 0; i < components.size(); ++i) {
    const json::value& component = components[i];
    const std::string where = "AppWrapper " + aw.key() + ": " + component_name(i);
    const json::value* tmpl = json::find(component, kPathRoot);
    if (tmpl == nullptr || !tmpl->is_object()) return fail(where + " has no template object");
    std::vector<AppWrapperPodSet> sets;
    if (use_status) {
      const json::value* listed = json::find(recorded->get_array()[i], "podSets");
      sets = read_pod_sets(listed != nullptr ? *listed : json::value(nullptr), i);
    } else if (const json::value* declared = json::find(component, "podSets"); non_empty(declared)) {
      sets = read_pod_sets(*declared, i);
    } else {
      auto inferred = infer_pod_sets(component, i);
      if (!inferred) return fail(where + ": " + inferred.error().message);
      sets = std::move(*inferred);
    }
    for (AppWrapperPodSet& ps : sets) {
      const json::value* at = appwrapper_path_value(component, ps.path);
      if (at == nullptr || !at->is_object() || !non_empty(json::find(*at, "spec"))) {
        return fail(where + ": pod set path \"" + ps.path + "\" does not refer to a pod template (a {metadata, spec})");
      }
      out.push_back(std::move(ps));
    }
  }
  return out;
}

Expected<json::array> appwrapper_pod_sets(const client::Object& aw, const PodSetOptions& options) {
  auto places = appwrapper_pod_set_places(aw);
  if (!places) return unexpected(places.error());
  const json::array& components = components_of(aw);
  json::array out;
  for (std::size_t i = 0; i < places->size(); ++i) {
    const AppWrapperPodSet& ps = (*places)[i];
    const json::value& at = *appwrapper_path_value(components[ps.component], ps.path);
    auto tmpl = kueue_pod_template(at, component_name(ps.component) + "." + ps.path);
    if (!tmpl) return fail("AppWrapper " + aw.key() + ": " + tmpl.error().message);
    json::object pod_set;
    pod_set["name"] = std::string(aw.name()) + "-" + std::to_string(i);
    pod_set["count"] = ps.replicas;
    if (options.topology_aware_scheduling) {
      auto req = topology_request_of(aw, at, ps);
      if (!req) return unexpected(req.error());
      if (*req) pod_set["topologyRequest"] = std::move(**req);
    }
    pod_set["template"] = std::move(*tmpl);
    out.push_back(std::move(pod_set));
  }
  return out;
}

Status validate_appwrapper(const client::Object& aw) { return validate_owner_labels(aw, kKind); }

const JobIntegration& appwrapper_integration() {
  static const AppWrapperIntegration kAppWrapper;
  return kAppWrapper;
}

}  // namespace kueuepp::kube::jobs
