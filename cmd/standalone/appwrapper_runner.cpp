#include "cmd/standalone/appwrapper_runner.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <set>

#include "cmd/standalone/crd_informer.hpp"
#include "core/model/time.hpp"
#include "kube/client/client.hpp"
#include "kube/client/informer.hpp"
#include "kube/client/resource.hpp"
#include "kube/jobs/appwrapper.hpp"
#include "kube/jobs/pod_set_info.hpp"

namespace kueuepp::cmd {

using kube::client::Object;
namespace resources = kube::client::resources;

namespace {

const json::array& components_of(const Object& aw) {
  static const json::array kNone;
  const json::value* c = aw.find({"spec", "components"});
  return c != nullptr && c->is_array() ? c->get_array() : kNone;
}

const json::value* template_of(const json::value& component) {
  const json::value* t = json::find(component, "template");
  return t != nullptr && t->is_object() ? t : nullptr;
}

/// The component's object name: its template's, else "<appwrapper>-<index>".
std::string component_name(const Object& aw, const json::value& tmpl, std::size_t index) {
  const json::value* metadata = json::find(tmpl, "metadata");
  const std::string_view name = metadata != nullptr ? json::get_string(*metadata, "name") : std::string_view{};
  return name.empty() ? std::string(aw.name()) + "-" + std::to_string(index) : std::string(name);
}

/// Which object this is among an AppWrapper's: apiVersion, kind and name.
std::string identity(std::string_view api_version, std::string_view kind, std::string_view name) {
  return std::string(api_version) + "/" + std::string(kind) + "/" + std::string(name);
}

bool controlled_by(const Object& child, const Object& aw) {
  auto ref = child.controller_reference();
  return ref && ref->kind == "AppWrapper" && ref->uid == aw.uid();
}

kube::client::StringMap string_map(const json::value* v) {
  kube::client::StringMap out;
  if (v == nullptr || !v->is_object()) return out;
  for (const auto& [k, val] : v->get_object()) {
    if (val.is_string()) out.emplace(std::string(k), std::string(val.get_string()));
  }
  return out;
}

/// An AppWrapperPodSetInfo as the pod set info Kueue's podset.Merge applies.
kube::jobs::PodSetInfo pod_set_info(const json::value& info) {
  kube::jobs::PodSetInfo out;
  out.annotations = string_map(json::find(info, "annotations"));
  out.labels = string_map(json::find(info, "labels"));
  out.node_selector = string_map(json::find(info, "nodeSelector"));
  if (const json::value* t = json::find(info, "tolerations"); t != nullptr && t->is_array()) out.tolerations = t->get_array();
  if (const json::value* g = json::find(info, "schedulingGates"); g != nullptr && g->is_array()) {
    out.scheduling_gates = g->get_array();
  }
  return out;
}

json::object& object_at(json::value& parent, std::string_view key) {
  json::value& v = parent.as_object()[key];
  if (!v.is_object()) v = json::object{};
  return v.as_object();
}

enum class Outcome { Running, Succeeded, Failed };

/// How a component ended, read the way its own controller reports it: a Complete,
/// Succeeded or Completed condition (Job, the Kubeflow jobs, JobSet), a Failed one, a
/// Pod's phase, a RayJob's deployment status.
Outcome outcome(const Object& child) {
  for (std::string_view type : {"Complete", "Succeeded", "Completed"}) {
    if (child.condition_true(type)) return Outcome::Succeeded;
  }
  if (child.condition_true("Failed")) return Outcome::Failed;
  const std::string_view phase = child.string_at({"status", "phase"});
  if (phase == "Succeeded") return Outcome::Succeeded;
  if (phase == "Failed") return Outcome::Failed;
  const std::string_view deployment = child.string_at({"status", "jobDeploymentStatus"});
  if (deployment == "Complete") {
    return child.string_at({"status", "jobStatus"}) == "SUCCEEDED" ? Outcome::Succeeded : Outcome::Failed;
  }
  if (deployment == "Failed") return Outcome::Failed;
  return Outcome::Running;
}

/// status.componentStatus as the AppWrapper controller records it on resuming.
json::array component_status(const Object& aw) {
  json::array out;
  auto places = kube::jobs::appwrapper_pod_set_places(aw);
  const json::array& components = components_of(aw);
  for (std::size_t i = 0; i < components.size(); ++i) {
    const json::value* tmpl = template_of(components[i]);
    if (tmpl == nullptr) return {};
    json::array pod_sets;
    if (places) {
      for (const kube::jobs::AppWrapperPodSet& ps : *places) {
        if (ps.component != i) continue;
        json::object p{{"path", ps.path}, {"replicas", ps.replicas}};
        if (!ps.annotations.empty()) {
          json::object a;
          for (const auto& [k, v] : ps.annotations) a[k] = v;
          p["annotations"] = std::move(a);
        }
        pod_sets.push_back(std::move(p));
      }
    }
    out.push_back(json::object{{"name", component_name(aw, *tmpl, i)},
                               {"kind", json::get_string(*tmpl, "kind")},
                               {"apiVersion", json::get_string(*tmpl, "apiVersion")},
                               {"podSets", std::move(pod_sets)}});
  }
  return out;
}

}  // namespace

Expected<Object> appwrapper_component(const Object& aw, std::size_t index) {
  const json::array& components = components_of(aw);
  const std::string where = "AppWrapper " + aw.key() + " spec.components[" + std::to_string(index) + "]";
  if (index >= components.size()) return fail(where + " does not exist");
  const json::value* tmpl = template_of(components[index]);
  if (tmpl == nullptr) return fail(where + " has no template");
  auto places = kube::jobs::appwrapper_pod_set_places(aw);
  if (!places) return unexpected(places.error());
  const json::value* infos = json::find(components[index], "podSetInfos");
  // Paths start at "template": resolve them in a copy of the component.
  json::value wrapper = json::object{{"template", *tmpl}};
  std::size_t k = 0;
  for (const kube::jobs::AppWrapperPodSet& ps : *places) {
    if (ps.component != index) continue;
    json::value* pod_template = kube::jobs::appwrapper_path_value(wrapper, ps.path);
    if (pod_template == nullptr || !pod_template->is_object()) return fail(where + ": no pod template at " + ps.path);
    // The AppWrapper controller labels the pods it is responsible for.
    object_at(*pod_template, "metadata");
    object_at(pod_template->as_object()["metadata"], "labels")[kAppWrapperLabel] = aw.name();
    if (infos != nullptr && infos->is_array() && k < infos->get_array().size()) {
      if (auto merged = kube::jobs::merge_into_template(*pod_template, pod_set_info(infos->get_array()[k])); !merged) {
        return fail(where + ": pod set " + ps.path + ": " + merged.error().message);
      }
    }
    ++k;
  }
  json::value object = std::move(wrapper.as_object()["template"]);
  json::object& metadata = object_at(object, "metadata");
  metadata["name"] = component_name(aw, *tmpl, index);
  metadata["namespace"] = aw.namespace_name();
  metadata.erase("resourceVersion");
  metadata.erase("uid");
  json::value& labels = metadata["labels"];
  if (!labels.is_object()) labels = json::object{};
  labels.as_object()[kAppWrapperLabel] = aw.name();
  metadata["ownerReferences"] =
      json::array{json::object{{"apiVersion", "workload.codeflare.dev/v1beta2"}, {"kind", "AppWrapper"},
                               {"name", aw.name()}, {"uid", aw.uid()}, {"controller", true},
                               {"blockOwnerDeletion", true}}};
  return Object(std::move(object));
}

AppWrapperStep appwrapper_step(const Object& aw, const std::vector<Object>& children, std::string_view now) {
  AppWrapperStep step;
  const std::string_view phase = aw.string_at({"status", "phase"});
  if (aw.being_deleted() || phase == "Succeeded") return step;
  std::map<std::string, const Object*> mine;
  for (const Object& c : children) {
    if (controlled_by(c, aw)) mine[identity(c.api_version(), c.kind(), c.name())] = &c;
  }
  auto remove_all = [&] {
    for (const auto& [id, c] : mine) {
      if (!c->being_deleted()) step.remove.push_back(*c);
    }
  };
  Object next = aw;
  auto condition = [&](std::string_view type, bool value, std::string_view reason, std::string_view message = {}) {
    next.set_condition(kube::client::Condition{std::string(type), value ? "True" : "False", std::string(reason),
                                               std::string(message), {}, {}},
                       now);
  };
  auto set_phase = [&](std::string_view p) { next.ensure({"status", "phase"}) = p; };

  if (phase == "Failed") {
    // Its components are deleted; its quota is Kueue's again once they are gone.
    remove_all();
    if (mine.empty()) {
      condition("QuotaReserved", false, "Failed");
      condition("ResourcesDeployed", false, "Failed");
    }
  } else if (aw.bool_at({"spec", "suspend"}).value_or(false)) {
    remove_all();
    if (!mine.empty()) {
      set_phase("Suspending");
    } else {
      set_phase("Suspended");
      condition("QuotaReserved", false, "Suspended", "Suspended by Kueue");
      condition("ResourcesDeployed", false, "Suspended");
      condition("PodsReady", false, "Suspended");
    }
  } else {
    const json::array& components = components_of(aw);
    bool all_exist = !components.empty();
    bool all_succeeded = true;
    bool any_failed = false;
    for (std::size_t i = 0; i < components.size(); ++i) {
      const json::value* tmpl = template_of(components[i]);
      if (tmpl == nullptr) continue;
      const std::string id = identity(json::get_string(*tmpl, "apiVersion"), json::get_string(*tmpl, "kind"),
                                      component_name(aw, *tmpl, i));
      auto it = mine.find(id);
      if (it == mine.end() || it->second->being_deleted()) {
        all_exist = false;
        all_succeeded = false;
        if (it != mine.end()) continue;  // created again once it is gone
        auto created = appwrapper_component(aw, i);
        if (created) {
          step.create.push_back(std::move(*created));
        } else {
          step.problems.push_back(created.error().message);
        }
        continue;
      }
      const Outcome o = outcome(*it->second);
      all_succeeded = all_succeeded && o == Outcome::Succeeded;
      any_failed = any_failed || o == Outcome::Failed;
    }
    if (!aw.find({"status", "componentStatus"})) next.ensure({"status", "componentStatus"}) = component_status(aw);
    if (any_failed) {
      set_phase("Failed");
    } else if (all_exist && all_succeeded) {
      set_phase("Succeeded");
      condition("QuotaReserved", false, "Succeeded");
      condition("PodsReady", false, "Succeeded");
    } else {
      set_phase(all_exist ? "Running" : "Resuming");
      condition("QuotaReserved", true, "Resumed");
      condition("ResourcesDeployed", true, "Resumed");
      condition("PodsReady", all_exist, all_exist ? "AllComponentsCreated" : "Resuming");
    }
  }
  const json::value* before = aw.find({"status"});
  const json::value* after = next.find({"status"});
  if (after != nullptr && (before == nullptr || !(*before == *after))) step.status = *after;
  return step;
}

struct AppWrapperRunner::Impl : std::enable_shared_from_this<Impl> {
  kube::client::Client& client;
  std::shared_ptr<kube::client::Informer> appwrappers_informer;
  /// One informer per kind of component seen, started on first sight.
  std::mutex informers_mutex;
  std::map<std::string, std::shared_ptr<kube::client::Informer>> child_informers;
  std::mutex mutex;
  std::map<std::string, Object> appwrappers;  ///< key -> AppWrapper
  /// "<namespace>/<appwrapper>" -> identity -> an object it controls.
  std::map<std::string, std::map<std::string, Object>> children;
  /// Writes asked for and not answered yet: not asked again meanwhile.
  std::set<std::string> creating;
  std::set<std::string> removing;
  std::set<std::string> said;  ///< problems logged already
  bool stopped = false;

  explicit Impl(kube::client::Client& c) : client(c) {}

  static void log_failure(std::string_view what, const std::string& key, const kube::client::ApiError& e) {
    if (!e.is_not_found()) spdlog::warn("appwrapper runner: {} {}: {}", what, key, e.message);
  }

  /// Looks at the AppWrapper `key` again (under `mutex`).
  void act(const std::string& key) {
    auto it = appwrappers.find(key);
    if (stopped || it == appwrappers.end()) return;
    const Object& aw = it->second;
    std::vector<Object> mine;
    if (auto c = children.find(key); c != children.end()) {
      for (const auto& [id, o] : c->second) mine.push_back(o);
    }
    AppWrapperStep step = appwrapper_step(aw, mine, core::format_rfc3339(std::chrono::time_point_cast<std::chrono::microseconds>(
                                                        std::chrono::system_clock::now())));
    for (const std::string& problem : step.problems) {
      if (said.insert(problem).second) spdlog::warn("appwrapper runner: {}", problem);
    }
    std::weak_ptr<Impl> weak = weak_from_this();
    const std::string ns(aw.namespace_name());
    for (Object& component : step.create) {
      const kube::client::ResourceDescriptor* resource =
          kube::client::find_resource(component.api_version(), component.kind());
      const std::string id = ns + "/" + identity(component.api_version(), component.kind(), component.name());
      if (resource == nullptr) {
        const std::string problem = "AppWrapper " + key + ": cannot create its " + std::string(component.kind()) + " " +
                                    std::string(component.name()) + ": the standalone runner creates only the kinds " +
                                    "kueuepp knows (batch/v1 Job, JobSet, the Kubeflow jobs, RayJob, RayCluster)";
        if (said.insert(problem).second) spdlog::warn("appwrapper runner: {}", problem);
        continue;
      }
      if (!creating.insert(id).second) continue;
      client.create(*resource, std::move(component), [weak, id, key](kube::client::Result<Object> r) {
        auto self = weak.lock();
        if (!self) return;
        std::lock_guard lock(self->mutex);
        self->creating.erase(id);
        if (!r && !r.error().is_already_exists()) log_failure("creating a component of", key, r.error());
      });
    }
    for (const Object& child : step.remove) {
      const kube::client::ResourceDescriptor* resource = kube::client::find_resource(child.api_version(), child.kind());
      const std::string id = ns + "/" + identity(child.api_version(), child.kind(), child.name());
      if (resource == nullptr || !removing.insert(id).second) continue;
      kube::client::DeleteOptions o;
      o.propagation_policy = "Background";  // what it created goes with it
      client.remove(
          *resource, ns, child.name(),
          [weak, id, key](kube::client::Result<kube::client::DeleteResult> r) {
            auto self = weak.lock();
            if (!self) return;
            std::lock_guard lock(self->mutex);
            self->removing.erase(id);
            if (!r) log_failure("deleting a component of", key, r.error());
          },
          o);
    }
    if (step.status) {
      kube::client::PatchOptions o;
      o.status_subresource = true;
      o.field_manager = "kueuepp-appwrapper-runner";
      client.patch(resources::kAppWrapper, ns, aw.name(), kube::client::PatchType::Merge,
                   json::object{{"status", std::move(*step.status)}},
                   [key](kube::client::Result<Object> r) {
                     if (!r) log_failure("status of", key, r.error());
                   },
                   o);
    }
  }

  /// Starts watching the kinds of the AppWrapper's components it does not watch yet.
  void watch_components_of(const Object& aw) {
    for (const json::value& component : components_of(aw)) {
      const json::value* tmpl = template_of(component);
      if (tmpl == nullptr) continue;
      const kube::client::ResourceDescriptor* resource =
          kube::client::find_resource(json::get_string(*tmpl, "apiVersion"), json::get_string(*tmpl, "kind"));
      if (resource == nullptr) continue;
      const std::string kind_key = resource->api_version() + "/" + std::string(resource->kind);
      std::lock_guard lock(informers_mutex);
      if (stopped_informers || child_informers.count(kind_key) != 0) continue;
      std::weak_ptr<Impl> weak = weak_from_this();
      // Watched only because an AppWrapper uses the kind: its missing CRD is said nothing of.
      child_informers[kind_key] = start_crd_informer(
          client, *resource, {"appwrapper runner", kind_key, ""},
          {[weak, kind_key](const std::vector<Object>& items) {
             if (auto self = weak.lock()) self->relisted_children(kind_key, items);
           },
           [weak](const Object& child, bool deleted) {
             if (auto self = weak.lock()) self->on_child(child, deleted);
           }});
    }
  }
  bool stopped_informers = false;  ///< under informers_mutex

  void on_appwrapper(const Object& aw, bool deleted) {
    if (!deleted) watch_components_of(aw);
    std::lock_guard lock(mutex);
    const std::string key = aw.key();
    if (deleted) {
      appwrappers.erase(key);
      return;
    }
    appwrappers[key] = aw;
    act(key);
  }

  void relisted_appwrappers(const std::vector<Object>& items) {
    for (const Object& aw : items) watch_components_of(aw);
    std::lock_guard lock(mutex);
    appwrappers.clear();
    for (const Object& aw : items) appwrappers[aw.key()] = aw;
    for (const auto& [key, aw] : appwrappers) act(key);
  }

  static std::optional<std::string> owner_key(const Object& child) {
    auto ref = child.controller_reference();
    if (!ref || ref->kind != "AppWrapper") return std::nullopt;
    return std::string(child.namespace_name()) + "/" + ref->name;
  }

  void on_child(const Object& child, bool deleted) {
    auto owner = owner_key(child);
    if (!owner) return;
    std::lock_guard lock(mutex);
    const std::string id = identity(child.api_version(), child.kind(), child.name());
    if (deleted) {
      children[*owner].erase(id);
    } else {
      children[*owner][id] = child;
    }
    act(*owner);
  }

  void relisted_children(const std::string& kind_key, const std::vector<Object>& items) {
    std::lock_guard lock(mutex);
    for (auto& [owner, of_owner] : children) {
      std::erase_if(of_owner, [&](const auto& entry) { return entry.first.starts_with(kind_key + "/"); });
    }
    for (const Object& child : items) {
      if (auto owner = owner_key(child)) children[*owner][identity(child.api_version(), child.kind(), child.name())] = child;
    }
    for (const auto& [key, aw] : appwrappers) act(key);
  }
};

AppWrapperRunner::AppWrapperRunner(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
AppWrapperRunner::~AppWrapperRunner() { stop(); }

std::unique_ptr<AppWrapperRunner> AppWrapperRunner::start(kube::client::Client& client) {
  auto impl = std::make_shared<Impl>(client);
  std::weak_ptr<Impl> weak = impl;
  impl->appwrappers_informer = start_crd_informer(
      client, resources::kAppWrapper,
      {"appwrapper runner", "AppWrappers", "no AppWrapper CRD yet; AppWrappers run once it is applied"},
      {[weak](const std::vector<Object>& items) {
         if (auto self = weak.lock()) self->relisted_appwrappers(items);
       },
       [weak](const Object& aw, bool deleted) {
         if (auto self = weak.lock()) self->on_appwrapper(aw, deleted);
       }});
  return std::unique_ptr<AppWrapperRunner>(new AppWrapperRunner(std::move(impl)));
}

void AppWrapperRunner::stop() {
  if (!impl_) return;
  if (impl_->appwrappers_informer) impl_->appwrappers_informer->stop();
  {
    std::lock_guard lock(impl_->informers_mutex);
    impl_->stopped_informers = true;
    for (auto& [kind, informer] : impl_->child_informers) informer->stop();
  }
  std::lock_guard lock(impl_->mutex);
  impl_->stopped = true;
}

}  // namespace kueuepp::cmd
