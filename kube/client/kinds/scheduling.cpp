#include "kube/client/kinds/scheduling.hpp"

namespace kueuepp::kube::client {

namespace {
void put_nonempty(json::object& o, std::string_view key, const std::string& value) {
  if (!value.empty()) o[key] = value;
}
}  // namespace

json::value Toleration::to_json() const {
  json::object o;
  put_nonempty(o, "key", key);
  put_nonempty(o, "operator", operator_);
  put_nonempty(o, "value", value);
  put_nonempty(o, "effect", effect);
  if (toleration_seconds) o["tolerationSeconds"] = *toleration_seconds;
  return o;
}

Toleration Toleration::from_json(const json::value& v) {
  Toleration t;
  t.key = std::string(json::get_string(v, "key"));
  t.operator_ = std::string(json::get_string(v, "operator"));
  t.value = std::string(json::get_string(v, "value"));
  t.effect = std::string(json::get_string(v, "effect"));
  if (const json::value* s = json::find(v, "tolerationSeconds"); s && s->is_int64()) {
    t.toleration_seconds = s->get_int64();
  }
  return t;
}

json::value Taint::to_json() const {
  json::object o;
  o["key"] = key;
  put_nonempty(o, "value", value);
  o["effect"] = effect;
  return o;
}

Taint Taint::from_json(const json::value& v) {
  return {std::string(json::get_string(v, "key")), std::string(json::get_string(v, "value")),
          std::string(json::get_string(v, "effect"))};
}

std::vector<Toleration> read_tolerations(const json::value* list) {
  std::vector<Toleration> out;
  if (list == nullptr || !list->is_array()) return out;
  for (const json::value& t : list->get_array()) {
    if (t.is_object()) out.push_back(Toleration::from_json(t));
  }
  return out;
}

json::value tolerations_to_json(const std::vector<Toleration>& tolerations) {
  json::array a;
  for (const Toleration& t : tolerations) a.push_back(t.to_json());
  return a;
}

}  // namespace kueuepp::kube::client
