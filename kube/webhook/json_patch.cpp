#include "kube/webhook/json_patch.hpp"

namespace kueuepp::kube::webhook {

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

json::object op(std::string_view verb, std::string path, json::value value) {
  json::object o;
  o["op"] = verb;
  o["path"] = std::move(path);
  o["value"] = std::move(value);
  return o;
}

json::object& metadata_of(json::value& object, json::array& patch) {
  json::object& root = object.as_object();
  json::value* meta = root.if_contains("metadata");
  if (meta == nullptr || !meta->is_object()) {
    patch.emplace_back(op(meta == nullptr ? "add" : "replace", "/metadata", json::object{}));
    root["metadata"] = json::object{};
    meta = root.if_contains("metadata");
  }
  return meta->as_object();
}

}  // namespace

void set_metadata_entry(json::value& object, std::string_view map, std::string_view key, std::string_view value,
                        json::array& patch) {
  json::object& meta = metadata_of(object, patch);
  json::value* entries = meta.if_contains(map);
  const std::string map_path = "/metadata/" + std::string(map);
  if (entries == nullptr || !entries->is_object()) {
    json::object fresh;
    fresh[key] = value;
    patch.emplace_back(op(entries == nullptr ? "add" : "replace", map_path, fresh));
    meta[map] = std::move(fresh);
    return;
  }
  json::object& e = entries->as_object();
  const bool present = e.contains(key);
  patch.emplace_back(op(present ? "replace" : "add", map_path + "/" + escape_pointer_token(key), json::string(value)));
  e[key] = value;
}

void add_finalizer(json::value& object, std::string_view finalizer, json::array& patch) {
  json::object& meta = metadata_of(object, patch);
  json::value* list = meta.if_contains("finalizers");
  if (list == nullptr || !list->is_array()) {
    json::array fresh{json::string(finalizer)};
    patch.emplace_back(op(list == nullptr ? "add" : "replace", "/metadata/finalizers", fresh));
    meta["finalizers"] = std::move(fresh);
    return;
  }
  for (const auto& f : list->as_array()) {
    if (f.is_string() && f.get_string() == finalizer) return;
  }
  patch.emplace_back(op("add", "/metadata/finalizers/-", json::string(finalizer)));
  list->as_array().emplace_back(json::string(finalizer));
}

}  // namespace kueuepp::kube::webhook
