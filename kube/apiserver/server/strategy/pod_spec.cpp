#include "kube/apiserver/server/strategy/pod_spec.hpp"

#include <fmt/format.h>

#include <set>

#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

namespace {

std::string_view image_pull_policy(std::string_view image) {
  // No tag, or :latest, pulls always (digests are pinned).
  if (image.find('@') != std::string_view::npos) return "IfNotPresent";
  std::size_t slash = image.rfind('/');
  std::size_t colon = image.rfind(':');
  bool has_tag = colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
  if (!has_tag || image.substr(colon + 1) == "latest") return "Always";
  return "IfNotPresent";
}

/// SetDefaults_HTTPGetAction: path "/" and scheme HTTP.
void default_handler(json::object& handler) {
  json::value* get = handler.if_contains("httpGet");
  if (get == nullptr || !get->is_object()) return;
  json::object& g = get->as_object();
  if (string_at(g, {"path"}).empty()) g["path"] = "/";
  if (string_at(g, {"scheme"}).empty()) g["scheme"] = "HTTP";
}

/// SetDefaults_Probe plus its handler's defaults.
void default_probe(json::object& c, std::string_view key) {
  json::value* p = c.if_contains(key);
  if (p == nullptr || !p->is_object()) return;
  json::object& probe = p->as_object();
  set_default(probe, "timeoutSeconds", 1);
  set_default(probe, "periodSeconds", 10);
  set_default(probe, "successThreshold", 1);
  set_default(probe, "failureThreshold", 3);
  default_handler(probe);
}

/// SetDefaults_ObjectFieldSelector: a downward-API field reference reads v1 fields.
void default_field_refs(json::object& c) {
  json::value* env = c.if_contains("env");
  if (env == nullptr || !env->is_array()) return;
  for (auto& e : env->as_array()) {
    json::value* from = e.is_object() ? e.as_object().if_contains("valueFrom") : nullptr;
    json::value* ref = from != nullptr && from->is_object() ? from->as_object().if_contains("fieldRef") : nullptr;
    if (ref != nullptr && ref->is_object()) set_default(ref->as_object(), "apiVersion", "v1");
  }
}

void default_container(json::object& c) {
  for (std::string_view probe : {"livenessProbe", "readinessProbe", "startupProbe"}) default_probe(c, probe);
  if (json::value* lifecycle = c.if_contains("lifecycle"); lifecycle != nullptr && lifecycle->is_object()) {
    for (std::string_view hook : {"postStart", "preStop"}) {
      json::value* h = lifecycle->as_object().if_contains(hook);
      if (h != nullptr && h->is_object()) default_handler(h->as_object());
    }
  }
  default_field_refs(c);
  set_default(c, "terminationMessagePath", "/dev/termination-log");
  set_default(c, "terminationMessagePolicy", "File");
  if (!c.contains("imagePullPolicy")) {
    std::string_view image = json::get_string(c, "image");
    c["imagePullPolicy"] = image_pull_policy(image);
  }
  set_default(c, "resources", json::object{});
  if (json::value* ports = c.if_contains("ports"); ports != nullptr && ports->is_array()) {
    for (auto& p : ports->as_array()) {
      if (p.is_object()) set_default(p.as_object(), "protocol", "TCP");
    }
  }
}

void default_containers(json::object& spec, std::string_view key) {
  json::value* list = spec.if_contains(key);
  if (list == nullptr || !list->is_array()) return;
  for (auto& c : list->as_array()) {
    if (c.is_object()) default_container(c.as_object());
  }
}

/// SetDefaults_{ConfigMap,Secret,Projected,DownwardAPI}VolumeSource: files are 0644.
void default_volumes(json::object& spec) {
  json::value* volumes = spec.if_contains("volumes");
  if (volumes == nullptr || !volumes->is_array()) return;
  for (auto& v : volumes->as_array()) {
    if (!v.is_object()) continue;
    for (std::string_view source : {"configMap", "secret", "projected", "downwardAPI"}) {
      json::value* s = v.as_object().if_contains(source);
      if (s != nullptr && s->is_object()) set_default(s->as_object(), "defaultMode", 420);
    }
  }
}

void validate_containers(const json::object& spec, std::string_view key, const std::string& path, bool required,
                         std::set<std::string>& names, FieldErrors& errs) {
  const json::value* list = spec.if_contains(key);
  std::string field = fmt::format("{}.{}", path, key);
  if (list == nullptr || !list->is_array() || list->as_array().empty()) {
    if (required) errs.push_back(required_error(field));
    return;
  }
  const json::array& arr = list->as_array();
  for (std::size_t i = 0; i < arr.size(); ++i) {
    std::string base = fmt::format("{}[{}]", field, i);
    if (!arr[i].is_object()) {
      errs.push_back(invalid_error(base, arr[i], "must be an object"));
      continue;
    }
    std::string_view name = json::get_string(arr[i], "name");
    if (name.empty()) {
      errs.push_back(required_error(base + ".name"));
    } else {
      for (const auto& p : dns1123_label_problems(name)) errs.push_back(invalid_error(base + ".name", json::value(name), p));
      if (!names.insert(std::string(name)).second) errs.push_back(duplicate_error(base + ".name", json::value(name)));
    }
    if (json::get_string(arr[i], "image").empty()) errs.push_back(required_error(base + ".image"));
  }
}

bool is_zero_quantity(const json::value& v) {
  if (v.is_int64()) return v.get_int64() == 0;
  if (v.is_string()) {
    std::string_view s = v.get_string();
    return s == "0" || s == "0m";
  }
  return false;
}

}  // namespace

void default_pod_spec(json::object& spec, bool default_restart_policy) {
  if (default_restart_policy) set_default(spec, "restartPolicy", "Always");
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "securityContext", json::object{});
  set_default(spec, "schedulerName", "default-scheduler");
  default_volumes(spec);
  default_containers(spec, "initContainers");
  default_containers(spec, "containers");
}

void default_pod_template(json::object& tmpl, bool default_restart_policy) {
  json::object& meta = object_member(tmpl, "metadata");
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
  json::value& spec = tmpl["spec"];
  if (!spec.is_object()) spec = json::object{};
  default_pod_spec(spec.as_object(), default_restart_policy);
}

FieldErrors validate_pod_spec(const json::value* spec, const std::string& path) {
  FieldErrors errs;
  if (spec == nullptr || !spec->is_object()) {
    errs.push_back(required_error(path + ".containers"));
    return errs;
  }
  const json::object& s = spec->as_object();
  std::set<std::string> names;
  validate_containers(s, "containers", path, true, names, errs);
  validate_containers(s, "initContainers", path, false, names, errs);
  std::string_view restart = json::get_string(*spec, "restartPolicy");
  if (!restart.empty() && restart != "Always" && restart != "OnFailure" && restart != "Never") {
    errs.push_back(not_supported_error(path + ".restartPolicy", json::value(restart), {"Always", "OnFailure", "Never"}));
  }
  return errs;
}

std::string qos_class(const json::object& spec) {
  const json::value* containers = spec.if_contains("containers");
  if (containers == nullptr || !containers->is_array()) return "BestEffort";
  bool any = false;
  bool guaranteed = true;
  for (const auto& c : containers->as_array()) {
    const json::value* requests = json::find_path(c, {"resources", "requests"});
    const json::value* limits = json::find_path(c, {"resources", "limits"});
    auto non_zero = [](const json::value* m) {
      if (m == nullptr || !m->is_object()) return false;
      for (const auto& kv : m->as_object()) {
        if (!is_zero_quantity(kv.value())) return true;
      }
      return false;
    };
    any = any || non_zero(requests) || non_zero(limits);
    for (std::string_view r : {"cpu", "memory"}) {
      const json::value* l = limits != nullptr ? json::find(*limits, r) : nullptr;
      const json::value* q = requests != nullptr ? json::find(*requests, r) : nullptr;
      if (l == nullptr || (q != nullptr && *q != *l)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

}  // namespace kueuepp::kube::server
