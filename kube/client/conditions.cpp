#include "kube/client/conditions.hpp"

namespace kueuepp::kube::client {

json::value Condition::to_json() const {
  json::object o;
  o["type"] = type;
  o["status"] = status;
  if (observed_generation) o["observedGeneration"] = *observed_generation;
  o["lastTransitionTime"] = last_transition_time;
  o["reason"] = reason;
  o["message"] = message;
  return o;
}

Condition Condition::from_json(const json::value& v) {
  Condition c;
  c.type = std::string(json::get_string(v, "type"));
  c.status = std::string(json::get_string(v, "status"));
  c.reason = std::string(json::get_string(v, "reason"));
  c.message = std::string(json::get_string(v, "message"));
  c.last_transition_time = std::string(json::get_string(v, "lastTransitionTime"));
  if (const json::value* g = json::find(v, "observedGeneration")) {
    if (g->is_int64()) c.observed_generation = g->get_int64();
    else if (g->is_uint64()) c.observed_generation = static_cast<std::int64_t>(g->get_uint64());
  }
  return c;
}

std::vector<Condition> read_conditions(const json::value* conditions) {
  std::vector<Condition> out;
  if (conditions == nullptr || !conditions->is_array()) return out;
  for (const json::value& c : conditions->get_array()) {
    if (c.is_object()) out.push_back(Condition::from_json(c));
  }
  return out;
}

const json::value* find_condition(const json::value* conditions, std::string_view type) {
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const json::value& c : conditions->get_array()) {
    if (c.is_object() && json::get_string(c, "type") == type) return &c;
  }
  return nullptr;
}

namespace {

bool assign_string(json::object& o, std::string_view key, std::string_view value) {
  auto it = o.find(key);
  if (it != o.end() && it->value().is_string() && it->value().get_string() == value) return false;
  o[key] = value;
  return true;
}

}  // namespace

bool set_condition(json::value& conditions, const Condition& condition, std::string_view now) {
  if (!conditions.is_array()) conditions = json::array{};
  json::array& list = conditions.get_array();
  for (json::value& entry : list) {
    json::object* o = entry.if_object();
    if (o == nullptr || json::get_string(entry, "type") != condition.type) continue;
    bool changed = false;
    if (json::get_string(entry, "status") != condition.status) {
      changed |= assign_string(*o, "status", condition.status);
      changed |= assign_string(*o, "lastTransitionTime", condition.last_transition_time.empty()
                                                             ? now
                                                             : std::string_view(condition.last_transition_time));
    }
    changed |= assign_string(*o, "reason", condition.reason);
    changed |= assign_string(*o, "message", condition.message);
    if (condition.observed_generation) {
      const json::value* g = o->if_contains("observedGeneration");
      if (g == nullptr || !g->is_int64() || g->get_int64() != *condition.observed_generation) {
        (*o)["observedGeneration"] = *condition.observed_generation;
        changed = true;
      }
    }
    return changed;
  }
  Condition added = condition;
  if (added.last_transition_time.empty()) added.last_transition_time = std::string(now);
  list.push_back(added.to_json());
  return true;
}

bool remove_condition(json::value& conditions, std::string_view type) {
  json::array* list = conditions.if_array();
  if (list == nullptr) return false;
  for (auto it = list->begin(); it != list->end(); ++it) {
    if (json::get_string(*it, "type") == type) {
      list->erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace kueuepp::kube::client
