#include "kube/server/store/stored_object.hpp"

namespace kueuepp::kube::server {

std::string object_key(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  if (!ns.empty()) {
    key.append(ns);
    key.push_back('/');
  }
  key.append(name);
  return key;
}

bool is_storable(const json::value& doc) {
  const json::value* meta = json::find(doc, "metadata");
  if (meta == nullptr || !meta->is_object()) return false;
  const json::value* name = meta->as_object().if_contains("name");
  return name != nullptr && name->is_string() && !name->get_string().empty();
}

ObjectPtr make_stored(json::value doc, std::uint64_t rv, schema::ValidationStamp validation) {
  auto obj = std::make_shared<StoredObject>();
  json::object& meta = doc.as_object()["metadata"].as_object();
  meta["resourceVersion"] = std::to_string(rv);
  obj->ns = std::string(json::get_string(meta, "namespace"));
  obj->name = std::string(json::get_string(meta, "name"));
  obj->uid = std::string(json::get_string(meta, "uid"));
  obj->key = object_key(obj->ns, obj->name);
  obj->rv = rv;
  obj->validation = validation;
  obj->json = json::dump(doc);
  obj->doc = std::move(doc);
  return obj;
}

}  // namespace kueuepp::kube::server
