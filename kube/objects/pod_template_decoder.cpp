#include <algorithm>

#include "kube/objects/decoders.hpp"
#include "kube/objects/field_reader.hpp"

namespace kueuepp::kube {

using json::JsonNode;

namespace {

core::ResourceList resource_list(FieldReader& r, JsonNode v, const FieldPath& path) {
  core::ResourceList out;
  r.object(v, path).for_each_member([&](std::string_view key, JsonNode value) {
    std::string name(key);
    if (auto q = r.quantity(value, sub(path, name))) out[name] = *q;
  });
  return out;
}

core::ContainerResources container_resources(FieldReader& r, JsonNode c, const FieldPath& path) {
  core::ContainerResources out;
  const JsonNode res = FieldReader::get(c, "resources");
  const FieldPath rp = sub(path, "resources");
  out.requests = resource_list(r, FieldReader::get(res, "requests"), sub(rp, "requests"));
  out.limits = resource_list(r, FieldReader::get(res, "limits"), sub(rp, "limits"));
  out.restart_always = r.string(FieldReader::get(c, "restartPolicy"), sub(path, "restartPolicy")) == "Always";
  return out;
}

std::vector<core::ContainerResources> containers(FieldReader& r, JsonNode v, const FieldPath& path,
                                                 std::optional<std::string>& invalid) {
  std::vector<core::ContainerResources> out;
  r.array(v, path).for_each_element([&](std::size_t i, JsonNode c) {
    const FieldPath p = sub(path, i);
    out.push_back(container_resources(r, c, p));
    if (auto bad = core::request_exceeding_limit(out.back()); bad && !invalid) {
      std::string cname = r.string(FieldReader::get(c, "name"), sub(p, "name"));
      invalid = "container " + cname + ": the " + *bad + " request must be less than or equal to its limit";
    }
  });
  return out;
}

std::optional<core::TaintEffect> effect(FieldReader& r, JsonNode v, const FieldPath& path) {
  std::string e = r.enumeration(v, path, {"NoSchedule", "PreferNoSchedule", "NoExecute", ""}, "");
  if (e == "NoSchedule") return core::TaintEffect::NoSchedule;
  if (e == "PreferNoSchedule") return core::TaintEffect::PreferNoSchedule;
  if (e == "NoExecute") return core::TaintEffect::NoExecute;
  return std::nullopt;
}

}  // namespace

std::vector<core::Toleration> decode_tolerations(FieldReader& r, JsonNode v, const FieldPath& path) {
  std::vector<core::Toleration> out;
  r.array(v, path).for_each_element([&](std::size_t i, JsonNode t) {
    const FieldPath p = sub(path, i);
    core::Toleration tol;
    tol.key = r.string(FieldReader::get(t, "key"), sub(p, "key"));
    std::string op = r.enumeration(FieldReader::get(t, "operator"), sub(p, "operator"), {"Equal", "Exists"}, "Equal");
    tol.op = op == "Exists" ? core::Toleration::Op::Exists : core::Toleration::Op::Equal;
    tol.value = r.string(FieldReader::get(t, "value"), sub(p, "value"));
    tol.effect = effect(r, FieldReader::get(t, "effect"), sub(p, "effect"));
    out.push_back(std::move(tol));
  });
  return out;
}

std::vector<core::Taint> decode_taints(FieldReader& r, JsonNode v, const FieldPath& path) {
  std::vector<core::Taint> out;
  r.array(v, path).for_each_element([&](std::size_t i, JsonNode t) {
    const FieldPath p = sub(path, i);
    core::Taint taint;
    taint.key = r.string(FieldReader::get(t, "key"), sub(p, "key"));
    taint.value = r.string(FieldReader::get(t, "value"), sub(p, "value"));
    auto e = effect(r, FieldReader::get(t, "effect"), sub(p, "effect"));
    if (!e && !r.failed()) r.fail(sub(p, "effect"), "Required value");
    taint.effect = e.value_or(core::TaintEffect::NoSchedule);
    out.push_back(std::move(taint));
  });
  return out;
}

namespace {

std::vector<core::NodeSelectorRequirement> node_selector_requirements(FieldReader& r, JsonNode v, const FieldPath& path) {
  std::vector<core::NodeSelectorRequirement> out;
  r.array(v, path).for_each_element([&](std::size_t j, JsonNode e) {
    const FieldPath p = sub(path, j);
    core::NodeSelectorRequirement req;
    req.key = r.string(FieldReader::get(e, "key"), sub(p, "key"));
    std::string op = r.enumeration(FieldReader::get(e, "operator"), sub(p, "operator"),
                                   {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}, "In");
    using Op = core::NodeSelectorRequirement::Op;
    static const std::pair<const char*, Op> kOps[] = {{"In", Op::In},         {"NotIn", Op::NotIn},
                                                      {"Exists", Op::Exists}, {"DoesNotExist", Op::DoesNotExist},
                                                      {"Gt", Op::Gt},         {"Lt", Op::Lt}};
    for (const auto& [name, value] : kOps) {
      if (op == name) req.op = value;
    }
    req.values = r.strings(FieldReader::get(e, "values"), sub(p, "values"));
    out.push_back(std::move(req));
  });
  return out;
}

}  // namespace

core::PodSet decode_pod_template(FieldReader& r, JsonNode tmpl, const FieldPath& path) {
  core::PodSet ps;
  const JsonNode spec = FieldReader::get(tmpl, "spec");
  const FieldPath sp = sub(path, "spec");
  core::PodResources pod;
  pod.containers = containers(r, FieldReader::get(spec, "containers"), sub(sp, "containers"), ps.invalid_requests);
  pod.init_containers =
      containers(r, FieldReader::get(spec, "initContainers"), sub(sp, "initContainers"), ps.invalid_requests);
  pod.overhead = resource_list(r, FieldReader::get(spec, "overhead"), sub(sp, "overhead"));
  if (const JsonNode res = FieldReader::get(spec, "resources")) {
    core::ContainerResources level;
    level.requests = resource_list(r, FieldReader::get(res, "requests"), sub(sp, "resources.requests"));
    level.limits = resource_list(r, FieldReader::get(res, "limits"), sub(sp, "resources.limits"));
    pod.pod_level = std::move(level);
  }
  ps.per_pod_requests = core::pod_requests(pod);
  ps.priority_class_name = r.string(FieldReader::get(spec, "priorityClassName"), sub(sp, "priorityClassName"));

  ps.placement.node_selector = r.string_map(FieldReader::get(spec, "nodeSelector"), sub(sp, "nodeSelector"));
  ps.placement.tolerations = decode_tolerations(r, FieldReader::get(spec, "tolerations"), sub(sp, "tolerations"));
  const JsonNode required = FieldReader::get(
      FieldReader::get(FieldReader::get(FieldReader::get(spec, "affinity"), "nodeAffinity"),
                       "requiredDuringSchedulingIgnoredDuringExecution"),
      "nodeSelectorTerms");
  const FieldPath tp = sub(sp, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
  if (const JsonNode terms = r.array(required, tp)) {
    std::vector<core::NodeSelectorTerm> out;
    terms.for_each_element([&](std::size_t i, JsonNode t) {
      core::NodeSelectorTerm term;
      const FieldPath term_path = sub(tp, i);
      term.match_expressions =
          node_selector_requirements(r, FieldReader::get(t, "matchExpressions"), sub(term_path, "matchExpressions"));
      out.push_back(std::move(term));
    });
    ps.placement.required_affinity = std::move(out);
  }
  return ps;
}

}  // namespace kueuepp::kube
