#include "core/model/resources.hpp"

namespace kueuepp::core {
namespace {

ResourceList effective_requests(const ContainerResources& c) {
  ResourceList out = c.requests;
  for (const auto& [name, limit] : c.limits) out.try_emplace(name, limit);
  return out;
}

void add_into(ResourceList& into, const ResourceList& from) {
  for (const auto& [name, q] : from) {
    auto [it, inserted] = into.try_emplace(name, q);
    if (!inserted) it->second = Quantity::from_milli(sat_add(it->second.milli(), q.milli()), it->second.format());
  }
}

void max_into(ResourceList& into, const ResourceList& from) {
  for (const auto& [name, q] : from) {
    auto [it, inserted] = into.try_emplace(name, q);
    if (!inserted && q.milli() > it->second.milli()) it->second = q;
  }
}

}  // namespace

ResourceList pod_requests(const PodResources& pod) {
  ResourceList reqs;
  for (const auto& c : pod.containers) add_into(reqs, effective_requests(c));

  ResourceList sidecars;       // requests of the restartable init containers started so far
  ResourceList init_phase_max;  // the largest requirement of any init phase
  for (const auto& c : pod.init_containers) {
    ResourceList phase = effective_requests(c);
    if (c.restart_always) {
      add_into(reqs, phase);
      add_into(sidecars, phase);
      phase = sidecars;
    } else {
      add_into(phase, sidecars);
    }
    max_into(init_phase_max, phase);
  }
  max_into(reqs, init_phase_max);

  if (pod.pod_level.has_value()) {
    for (const auto& [name, q] : effective_requests(*pod.pod_level)) reqs[name] = q;
  }
  add_into(reqs, pod.overhead);
  return reqs;
}

std::optional<std::string> request_exceeding_limit(const ContainerResources& c) {
  for (const auto& [name, req] : c.requests) {
    auto it = c.limits.find(name);
    if (it != c.limits.end() && req.milli() > it->second.milli()) return name;
  }
  return std::nullopt;
}

}  // namespace kueuepp::core
