#include "kube/client/kinds/workload.hpp"

namespace kueuepp::kube::client {

namespace {

std::map<std::string, std::string> read_map(const json::value* v) {
  std::map<std::string, std::string> out;
  if (v == nullptr || !v->is_object()) return out;
  for (const auto& [k, val] : v->get_object()) {
    if (val.is_string()) out.emplace(std::string(k), std::string(val.get_string()));
  }
  return out;
}

json::object write_map(const std::map<std::string, std::string>& m) {
  json::object o;
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

}  // namespace

json::value PodSetAssignment::to_json() const {
  json::object o;
  o["name"] = name;
  o["flavors"] = write_map(flavors);
  o["resourceUsage"] = write_map(resource_usage);
  if (count) o["count"] = *count;
  return o;
}

PodSetAssignment PodSetAssignment::from_json(const json::value& v) {
  PodSetAssignment a;
  a.name = std::string(json::get_string(v, "name"));
  a.flavors = read_map(json::find(v, "flavors"));
  a.resource_usage = read_map(json::find(v, "resourceUsage"));
  if (const json::value* c = json::find(v, "count"); c && c->is_int64()) a.count = c->get_int64();
  return a;
}

json::value Admission::to_json() const {
  json::object o;
  o["clusterQueue"] = cluster_queue;
  json::array assignments;
  for (const PodSetAssignment& a : pod_set_assignments) assignments.push_back(a.to_json());
  o["podSetAssignments"] = std::move(assignments);
  return o;
}

Admission Admission::from_json(const json::value& v) {
  Admission a;
  a.cluster_queue = std::string(json::get_string(v, "clusterQueue"));
  if (const json::value* list = json::find(v, "podSetAssignments"); list && list->is_array()) {
    for (const json::value& item : list->get_array()) {
      if (item.is_object()) a.pod_set_assignments.push_back(PodSetAssignment::from_json(item));
    }
  }
  return a;
}

std::optional<PriorityClassRef> Workload::priority_class_ref() const {
  const json::value* ref = find({"spec", "priorityClassRef"});
  if (ref == nullptr || !ref->is_object()) return std::nullopt;
  return PriorityClassRef{std::string(json::get_string(*ref, "group")),
                          std::string(json::get_string(*ref, "kind")),
                          std::string(json::get_string(*ref, "name"))};
}

std::vector<PodSetInfo> Workload::pod_sets() const {
  std::vector<PodSetInfo> out;
  const json::value* list = find({"spec", "podSets"});
  if (list == nullptr || !list->is_array()) return out;
  for (const json::value& ps : list->get_array()) {
    if (!ps.is_object()) continue;
    PodSetInfo info;
    info.name = std::string(json::get_string(ps, "name"));
    if (const json::value* c = json::find(ps, "count"); c && c->is_int64()) info.count = c->get_int64();
    if (const json::value* m = json::find(ps, "minCount"); m && m->is_int64()) {
      info.min_count = m->get_int64();
    }
    info.pod_template = json::find(ps, "template");
    out.push_back(std::move(info));
  }
  return out;
}

std::optional<Admission> Workload::admission() const {
  const json::value* a = find({"status", "admission"});
  if (a == nullptr || !a->is_object()) return std::nullopt;
  return Admission::from_json(*a);
}

void Workload::set_admission(const std::optional<Admission>& admission) {
  if (!admission) {
    erase({"status", "admission"});
    return;
  }
  ensure({"status", "admission"}) = admission->to_json();
}

}  // namespace kueuepp::kube::client
