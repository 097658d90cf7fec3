#include "kube/jobs/pod_set_info.hpp"

#include <algorithm>
#include <set>

#include "kube/jobs/constants.hpp"
#include "kube/jobs/k8s_names.hpp"
#include "kube/jobs/semantic_equal.hpp"

namespace kueuepp::kube::jobs {

namespace {

constexpr std::string_view kTopologySchedulingGate = "kueue.x-k8s.io/topology";

client::StringMap read_string_map(const json::value* v) {
  client::StringMap out;
  if (v == nullptr || !v->is_object()) return out;
  for (const auto& [k, val] : v->get_object()) {
    if (val.is_string()) out.emplace(std::string(k), std::string(val.get_string()));
  }
  return out;
}

json::array read_array(const json::value* v) {
  return v != nullptr && v->is_array() ? v->get_array() : json::array{};
}

json::object to_json(const client::StringMap& m) {
  json::object o;
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

/// Go's utilmaps.HaveConflict, with Kueue's error text.
Expected<void, InjectionError> check_conflict(const client::StringMap& a, const client::StringMap& b,
                                              std::string_view field) {
  for (const auto& [k, av] : a) {
    auto it = b.find(k);
    if (it != b.end() && it->second != av) {
      return unexpected(InjectionError{"invalid admission check PodSetUpdate: conflict for " + std::string(field) +
                                           ": conflict for key=" + k + ", value1=" + av + ", value2=" + it->second,
                                       true});
    }
  }
  return {};
}

const json::value* pod_set_at(const client::Object& wl, std::size_t index) {
  const json::value* sets = wl.find({"spec", "podSets"});
  if (sets == nullptr || !sets->is_array() || index >= sets->get_array().size()) return nullptr;
  return &sets->get_array()[index];
}

bool has_explicit_topology_request(const json::value* pod_set) {
  const json::value* req = pod_set ? json::find(*pod_set, "topologyRequest") : nullptr;
  if (req == nullptr || !req->is_object()) return false;
  for (const char* key : {"required", "preferred", "unconstrained"}) {
    const json::value* v = json::find(*req, key);
    if (v != nullptr && !v->is_null()) return true;
  }
  return false;
}

PodSetInfo from_pod_set_update(const json::value& update) {
  PodSetInfo info;
  info.annotations = read_string_map(json::find(update, "annotations"));
  info.labels = read_string_map(json::find(update, "labels"));
  info.node_selector = read_string_map(json::find(update, "nodeSelector"));
  info.tolerations = read_array(json::find(update, "tolerations"));
  return info;
}

/// podset.FromAssignment plus the labels and annotations getPodSetsInfoFromStatus adds.
Expected<PodSetInfo, InjectionError> from_assignment(const client::Object& wl, const json::value& assignment,
                                                     const json::value* pod_set, const FlavorLookup& flavors,
                                                     const InjectionOptions& options) {
  PodSetInfo info;
  info.name = std::string(json::get_string(assignment, "name"));
  const json::value* count = json::find(assignment, "count");
  if (count != nullptr && count->is_number()) {
    info.count = count->to_number<std::int64_t>();
  } else if (const json::value* spec_count = pod_set ? json::find(*pod_set, "count") : nullptr;
             spec_count && spec_count->is_number()) {
    info.count = spec_count->to_number<std::int64_t>();
  }
  const json::value* topology = json::find(assignment, "topologyAssignment");
  if (options.topology_aware_scheduling && topology != nullptr && !topology->is_null()) {
    if (!has_explicit_topology_request(pod_set)) info.annotations[std::string(kUnconstrainedTopologyAnnotation)] = "true";
    info.scheduling_gates.push_back(json::object{{"name", kTopologySchedulingGate}});
  }
  // Each distinct flavor once, in resource-name order (Kueue iterates a Go map; with
  // consistent flavors the order does not matter).
  std::set<std::string> seen;
  if (const json::value* fl = json::find(assignment, "flavors"); fl && fl->is_object()) {
    std::map<std::string, std::string> by_resource = read_string_map(fl);
    for (const auto& [resource, flavor] : by_resource) {
      if (!seen.insert(flavor).second) continue;
      const client::Object* rf = flavors ? flavors(flavor) : nullptr;
      if (rf == nullptr) {
        return unexpected(InjectionError{"ResourceFlavor \"" + flavor + "\" assigned to pod set " + info.name +
                                             " of Workload " + wl.key() + " not found",
                                         false});
      }
      for (const auto& [k, v] : rf->string_map_at({"spec", "nodeLabels"})) info.node_selector[k] = v;
      for (const json::value& t : read_array(rf->find({"spec", "tolerations"}))) info.tolerations.push_back(t);
    }
  }
  if (options.topology_aware_scheduling) info.annotations[std::string(kWorkloadAnnotation)] = std::string(wl.name());
  info.labels[std::string(kPodSetLabel)] = info.name;
  if (options.assign_queue_labels) {
    info.labels[std::string(kLocalQueueLabel)] = std::string(wl.string_at({"spec", "queueName"}));
    std::string_view cq = wl.string_at({"status", "admission", "clusterQueue"});
    if (is_dns1123_label(cq)) info.labels[std::string(kClusterQueueLabel)] = std::string(cq);
  }
  // The podSetUpdates admission checks ask for, merged in (the first update per check).
  if (const json::value* checks = wl.find({"status", "admissionChecks"}); checks && checks->is_array()) {
    for (const json::value& check : checks->get_array()) {
      for (const json::value& update : read_array(json::find(check, "podSetUpdates"))) {
        if (json::get_string(update, "name") != info.name) continue;
        auto merged = merge_info(info, from_pod_set_update(update));
        if (!merged) {
          return unexpected(InjectionError{"in admission check \"" + std::string(json::get_string(check, "name")) +
                                               "\": " + merged.error().message,
                                           true});
        }
        break;
      }
    }
  }
  return info;
}

void write_map(json::object& o, std::string_view key, const client::StringMap& m) {
  if (m.empty()) {
    o.erase(key);
  } else {
    o[key] = to_json(m);
  }
}

json::object& ensure_object(json::value& parent, std::string_view key) {
  json::object& o = parent.as_object();
  json::value& v = o[key];
  if (!v.is_object()) v = json::object{};
  return v.get_object();
}

}  // namespace

bool same_toleration(const json::value& a, const json::value& b) {
  auto op = [](const json::value& t) {
    std::string_view o = json::get_string(t, "operator");
    return o.empty() ? std::string_view("Equal") : o;
  };
  return json::get_string(a, "key") == json::get_string(b, "key") && op(a) == op(b) &&
         json::get_string(a, "value") == json::get_string(b, "value") &&
         json::get_string(a, "effect") == json::get_string(b, "effect");
}

Expected<std::vector<PodSetInfo>, InjectionError> pod_set_infos_from_admission(const client::Object& workload,
                                                                             const FlavorLookup& flavors,
                                                                             const InjectionOptions& options) {
  std::vector<PodSetInfo> out;
  const json::value* assignments = workload.find({"status", "admission", "podSetAssignments"});
  if (assignments == nullptr || !assignments->is_array()) return out;
  std::size_t i = 0;
  for (const json::value& a : assignments->get_array()) {
    auto info = from_assignment(workload, a, pod_set_at(workload, i++), flavors, options);
    if (!info) return unexpected(std::move(info).error());
    out.push_back(std::move(*info));
  }
  return out;
}

std::vector<PodSetInfo> pod_set_infos_from_spec(const client::Object& workload) {
  std::vector<PodSetInfo> out;
  const json::value* sets = workload.find({"spec", "podSets"});
  if (sets == nullptr || !sets->is_array()) return out;
  for (const json::value& ps : sets->get_array()) {
    PodSetInfo info;
    info.name = std::string(json::get_string(ps, "name"));
    if (const json::value* c = json::find(ps, "count"); c && c->is_number()) info.count = c->to_number<std::int64_t>();
    info.annotations = read_string_map(json::find_path(ps, {"template", "metadata", "annotations"}));
    info.labels = read_string_map(json::find_path(ps, {"template", "metadata", "labels"}));
    info.node_selector = read_string_map(json::find_path(ps, {"template", "spec", "nodeSelector"}));
    info.tolerations = read_array(json::find_path(ps, {"template", "spec", "tolerations"}));
    info.scheduling_gates = read_array(json::find_path(ps, {"template", "spec", "schedulingGates"}));
    out.push_back(std::move(info));
  }
  return out;
}

Expected<void, InjectionError> merge_info(PodSetInfo& into, const PodSetInfo& from) {
  if (auto r = check_conflict(into.annotations, from.annotations, "annotations"); !r) return r;
  if (auto r = check_conflict(into.labels, from.labels, "labels"); !r) return r;
  if (auto r = check_conflict(into.node_selector, from.node_selector, "nodeSelector"); !r) return r;
  for (const auto& [k, v] : from.annotations) into.annotations[k] = v;
  for (const auto& [k, v] : from.labels) into.labels[k] = v;
  for (const auto& [k, v] : from.node_selector) into.node_selector[k] = v;
  for (const json::value& t : from.tolerations) {
    bool present = std::any_of(into.tolerations.begin(), into.tolerations.end(),
                               [&](const json::value& e) { return same_toleration(e, t); });
    if (!present) into.tolerations.push_back(t);
  }
  for (const json::value& g : from.scheduling_gates) {
    if (std::find(into.scheduling_gates.begin(), into.scheduling_gates.end(), g) == into.scheduling_gates.end()) {
      into.scheduling_gates.push_back(g);
    }
  }
  return {};
}

Expected<void, InjectionError> merge_into_template(json::value& pod_template, const PodSetInfo& info) {
  if (!pod_template.is_object()) pod_template = json::object{};
  PodSetInfo current;
  current.annotations = read_string_map(json::find_path(pod_template, {"metadata", "annotations"}));
  current.labels = read_string_map(json::find_path(pod_template, {"metadata", "labels"}));
  current.node_selector = read_string_map(json::find_path(pod_template, {"spec", "nodeSelector"}));
  current.tolerations = read_array(json::find_path(pod_template, {"spec", "tolerations"}));
  current.scheduling_gates = read_array(json::find_path(pod_template, {"spec", "schedulingGates"}));
  if (auto r = merge_info(current, info); !r) return r;

  // Write back only what the merge filled, so an untouched template stays byte-identical.
  if (!current.annotations.empty() || !current.labels.empty()) {
    json::object& meta = ensure_object(pod_template, "metadata");
    if (!current.annotations.empty()) write_map(meta, "annotations", current.annotations);
    if (!current.labels.empty()) write_map(meta, "labels", current.labels);
  }
  if (!current.node_selector.empty() || !current.tolerations.empty() || !current.scheduling_gates.empty()) {
    json::object& spec = ensure_object(pod_template, "spec");
    if (!current.node_selector.empty()) write_map(spec, "nodeSelector", current.node_selector);
    if (!current.tolerations.empty()) spec["tolerations"] = std::move(current.tolerations);
    if (!current.scheduling_gates.empty()) spec["schedulingGates"] = std::move(current.scheduling_gates);
  }
  return {};
}

bool restore_template(json::value& pod_template, const PodSetInfo& info) {
  if (!pod_template.is_object()) pod_template = json::object{};
  bool changed = false;
  auto restore_map = [&](std::string_view section, std::string_view key, const client::StringMap& want) {
    const json::value* have = json::find_path(pod_template, {section, key});
    if (read_string_map(have) == want) return;
    write_map(ensure_object(pod_template, section), key, want);
    changed = true;
  };
  auto restore_list = [&](std::string_view key, const json::array& want) {
    const json::value* have = json::find_path(pod_template, {"spec", key});
    json::value want_value = want;
    if (semantically_equal(have, &want_value)) return;
    json::object& spec = ensure_object(pod_template, "spec");
    if (want.empty()) {
      spec.erase(key);
    } else {
      spec[key] = want;
    }
    changed = true;
  };
  restore_map("metadata", "annotations", info.annotations);
  restore_map("metadata", "labels", info.labels);
  restore_map("spec", "nodeSelector", info.node_selector);
  restore_list("tolerations", info.tolerations);
  restore_list("schedulingGates", info.scheduling_gates);
  return changed;
}

}  // namespace kueuepp::kube::jobs
