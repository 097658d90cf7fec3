#include "kube/client/kinds/core_objects.hpp"

namespace kueuepp::kube::client {

std::vector<std::string> Pod::scheduling_gates() const {
  std::vector<std::string> out;
  const json::value* gates = find({"spec", "schedulingGates"});
  if (gates == nullptr || !gates->is_array()) return out;
  for (const json::value& g : gates->get_array()) {
    const std::string_view name = json::get_string(g, "name");
    if (!name.empty()) out.emplace_back(name);
  }
  return out;
}

bool Pod::remove_scheduling_gate(std::string_view name) {
  json::value* spec = json::find(doc_, "spec");
  json::value* gates = spec ? json::find(*spec, "schedulingGates") : nullptr;
  if (gates == nullptr || !gates->is_array()) return false;
  json::array& list = gates->get_array();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (json::get_string(*it, "name") == name) {
      list.erase(it);
      if (list.empty()) erase({"spec", "schedulingGates"});
      return true;
    }
  }
  return false;
}

std::string_view PriorityClass::preemption_policy() const {
  const std::string_view p = string_at({"preemptionPolicy"});
  return p.empty() ? "PreemptLowerPriority" : p;
}

Event Event::make(const EventInit& init, std::string_view unique_suffix) {
  Event e;
  e.set_type("v1", "Event");
  e.set_name(init.involved_name + "." + std::string(unique_suffix));
  e.set_namespace(init.namespace_name.empty() ? "default" : init.namespace_name);
  json::object involved;
  involved["apiVersion"] = init.involved_api_version;
  involved["kind"] = init.involved_kind;
  involved["name"] = init.involved_name;
  if (!init.involved_namespace.empty()) involved["namespace"] = init.involved_namespace;
  if (!init.involved_uid.empty()) involved["uid"] = init.involved_uid;
  e.ensure({"involvedObject"}) = std::move(involved);
  e.ensure({"type"}) = init.type;
  e.ensure({"reason"}) = init.reason;
  e.ensure({"message"}) = init.message;
  if (!init.action.empty()) e.ensure({"action"}) = init.action;
  e.ensure({"reportingComponent"}) = init.reporting_controller;
  if (!init.reporting_instance.empty()) e.ensure({"reportingInstance"}) = init.reporting_instance;
  e.ensure({"source", "component"}) = init.reporting_controller;
  const std::string now = format_time(init.now);
  e.ensure({"firstTimestamp"}) = now;
  e.ensure({"lastTimestamp"}) = now;
  e.ensure({"count"}) = 1;
  return e;
}

void Event::record_repeat(TimePoint now) {
  ensure({"count"}) = count() + 1;
  ensure({"lastTimestamp"}) = format_time(now);
}

}  // namespace kueuepp::kube::client
