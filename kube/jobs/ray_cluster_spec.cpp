#include "kube/jobs/ray_cluster_spec.hpp"

#include <cctype>
#include <string>

namespace kueuepp::kube::jobs {

namespace {

std::int64_t number_or(const json::value* v, std::int64_t fallback) {
  return v != nullptr && v->is_number() ? v->to_number<std::int64_t>() : fallback;
}

std::string lower(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

json::value* template_of(json::value& group) {
  json::value* tmpl = json::find(group, "template");
  return tmpl != nullptr && tmpl->is_object() ? tmpl : nullptr;
}

/// The autoscaler sidecar KubeRay adds to the head pod (not in the head template): its
/// resources from autoscalerOptions.resources, else KubeRay's defaults.
json::value autoscaler_container(const json::value& cluster_spec) {
  json::object container;
  container["name"] = "autoscaler";
  if (const json::value* r = json::find_path(cluster_spec, {"autoscalerOptions", "resources"}); r && r->is_object()) {
    container["resources"] = *r;
  } else {
    json::object amounts;
    amounts["cpu"] = "500m";
    amounts["memory"] = "512Mi";
    json::object resources;
    resources["requests"] = amounts;
    resources["limits"] = amounts;
    container["resources"] = std::move(resources);
  }
  return container;
}

}  // namespace

std::int64_t ray_worker_group_pods(const json::value& worker_group) {
  std::int64_t count = number_or(json::find(worker_group, "replicas"), 1);
  const std::int64_t hosts = number_or(json::find(worker_group, "numOfHosts"), 1);
  return hosts > 1 ? count * hosts : count;
}

const json::array& ray_worker_groups(const json::value& cluster_spec) {
  static const json::array kNone;
  const json::value* groups = json::find(cluster_spec, "workerGroupSpecs");
  return groups != nullptr && groups->is_array() ? groups->get_array() : kNone;
}

std::size_t ray_cluster_pod_set_count(const json::value& cluster_spec) {
  return ray_worker_groups(cluster_spec).size() + 1;
}

Expected<json::array> ray_cluster_pod_sets(const json::value& cluster_spec, const client::Object& owner,
                                           std::string_view what, const PodSetOptions& options) {
  json::array out;
  auto add = [&](std::string name, const json::value* tmpl, std::int64_t count, std::string_view field,
                 bool with_autoscaler) -> Status {
    if (tmpl == nullptr || !tmpl->is_object()) {
      return fail(std::string(what) + ": " + std::string(field) + " has no template; Kueue cannot queue it");
    }
    json::object pod_set;
    pod_set["name"] = std::move(name);
    json::value pod_template = *tmpl;
    if (json::value* spec = json::find(pod_template, "spec"); spec != nullptr && spec->is_object()) {
      sanitize_containers(*spec);
      if (with_autoscaler) {
        if (json::value* containers = json::find(*spec, "containers"); containers && containers->is_array()) {
          containers->as_array().push_back(autoscaler_container(cluster_spec));
        }
      }
    }
    pod_set["template"] = std::move(pod_template);
    pod_set["count"] = count;
    if (options.topology_aware_scheduling) {
      auto req = ray_topology_request(owner, *tmpl);
      if (!req) return unexpected(req.error());
      if (*req) pod_set["topologyRequest"] = std::move(**req);
    }
    out.push_back(std::move(pod_set));
    return {};
  };
  const json::value* autoscaling_flag = json::find(cluster_spec, "enableInTreeAutoscaling");
  const bool autoscaling = autoscaling_flag != nullptr && autoscaling_flag->is_bool() && autoscaling_flag->get_bool();
  const json::value* head = json::find_path(cluster_spec, {"headGroupSpec", "template"});
  if (auto added = add(std::string(kRayHeadPodSet), head, 1, "headGroupSpec", autoscaling); !added) {
    return unexpected(added.error());
  }
  const json::array& groups = ray_worker_groups(cluster_spec);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string field = "workerGroupSpecs[" + std::to_string(i) + "]";
    if (auto added = add(lower(json::get_string(groups[i], "groupName")), json::find(groups[i], "template"),
                         ray_worker_group_pods(groups[i]), field, false);
        !added) {
      return unexpected(added.error());
    }
  }
  return out;
}

Expected<std::optional<json::object>> ray_topology_request(const client::Object& owner, const json::value& tmpl) {
  auto req = topology_request(owner, tmpl);
  if (!req) return unexpected(req.error());
  req->erase("podIndexLabel");
  if (req->empty()) return std::optional<json::object>{};
  return std::optional<json::object>{std::move(*req)};
}

std::pair<std::string, std::string> ray_cluster_priority_class(const json::value& cluster_spec, std::string_view path) {
  auto named = [](const json::value* tmpl) -> std::string_view {
    const json::value* name = tmpl != nullptr ? json::find_path(*tmpl, {"spec", "priorityClassName"}) : nullptr;
    return name != nullptr && name->is_string() ? std::string_view(name->get_string()) : std::string_view{};
  };
  if (auto n = named(json::find_path(cluster_spec, {"headGroupSpec", "template"})); !n.empty()) {
    return {std::string(n), std::string(path) + ".headGroupSpec.template.spec.priorityClassName"};
  }
  const json::array& groups = ray_worker_groups(cluster_spec);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (auto n = named(json::find(groups[i], "template")); !n.empty()) {
      return {std::string(n), std::string(path) + ".workerGroupSpecs[" + std::to_string(i) +
                                  "].template.spec.priorityClassName"};
    }
  }
  return {};
}

Expected<void, InjectionError> ray_cluster_inject(json::value& cluster_spec, const std::vector<PodSetInfo>& infos,
                                                  std::string_view what) {
  json::value* head = json::find(cluster_spec, "headGroupSpec");
  json::value* head_template = head != nullptr ? template_of(*head) : nullptr;
  if (head_template == nullptr) {
    return unexpected(InjectionError{std::string(what) + ": headGroupSpec has no template", true});
  }
  if (auto merged = merge_into_template(*head_template, infos[0]); !merged) {
    return unexpected(InjectionError{std::string(what) + ": head group: " + merged.error().message, true});
  }
  json::value* groups = json::find(cluster_spec, "workerGroupSpecs");
  if (groups == nullptr || !groups->is_array()) return {};
  json::array& list = groups->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    json::value* tmpl = template_of(list[i]);
    const std::string group(json::get_string(list[i], "groupName"));
    if (tmpl == nullptr) {
      return unexpected(InjectionError{std::string(what) + ": worker group \"" + group + "\" has no template", true});
    }
    if (auto merged = merge_into_template(*tmpl, infos[i + 1]); !merged) {
      return unexpected(
          InjectionError{std::string(what) + ": worker group \"" + group + "\": " + merged.error().message, true});
    }
  }
  return {};
}

void ray_cluster_restore(json::value& cluster_spec, const std::vector<PodSetInfo>& infos) {
  if (json::value* head = json::find(cluster_spec, "headGroupSpec"); head != nullptr) {
    if (json::value* tmpl = template_of(*head)) restore_template(*tmpl, infos[0]);
  }
  json::value* groups = json::find(cluster_spec, "workerGroupSpecs");
  if (groups == nullptr || !groups->is_array()) return;
  json::array& list = groups->as_array();
  for (std::size_t i = 0; i < list.size() && i + 1 < infos.size(); ++i) {
    if (json::value* tmpl = template_of(list[i])) restore_template(*tmpl, infos[i + 1]);
  }
}

}  // namespace kueuepp::kube::jobs
