#include "kube/apiserver/server/store/stored_object.hpp"

#include <optional>
#include <string_view>

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

ObjectPtr make_stored(json::value doc, std::uint64_t rv, schema::ValidationStamp validation,
                      const StoredObject* managed_fields_of) {
  auto obj = std::make_shared<StoredObject>();
  json::object& meta = doc.as_object()["metadata"].as_object();
  meta["resourceVersion"] = std::to_string(rv);
  obj->ns = std::string(json::get_string(meta, "namespace"));
  obj->name = std::string(json::get_string(meta, "name"));
  obj->uid = std::string(json::get_string(meta, "uid"));
  obj->key = object_key(obj->ns, obj->name);
  obj->rv = rv;
  obj->validation = validation;
  json::value* managed_fields = meta.if_contains("managedFields");
  const bool shared = managed_fields != nullptr && managed_fields_of != nullptr && managed_fields_of->managed_fields;
  std::optional<std::string_view> managed_fields_text;
  if (shared) managed_fields_text = managed_fields_of->managed_fields_text.in(managed_fields_of->json);
  obj->json = json::dump_noting_member(doc.as_object(), "metadata", "managedFields", managed_fields_text,
                                       &obj->managed_fields_text);
  if (shared) {
    obj->managed_fields = managed_fields_of->managed_fields;
    *managed_fields = nullptr;
  } else if (managed_fields != nullptr) {
    obj->managed_fields = std::make_shared<const json::value>(std::move(*managed_fields));
    *managed_fields = nullptr;
  }
  obj->doc = std::move(doc);
  return obj;
}

ObjectPtr restamped(const StoredObject& object, std::uint64_t rv) {
  return make_stored(object.doc, rv, {}, &object);
}

json::object StoredObject::metadata() const {
  const json::value* meta = json::find(doc, "metadata");
  json::object out = meta != nullptr && meta->is_object() ? meta->get_object() : json::object();
  if (managed_fields) out["managedFields"] = *managed_fields;
  return out;
}

json::value StoredObject::document() const {
  json::value whole = doc;
  if (managed_fields) whole.as_object()["metadata"].as_object()["managedFields"] = *managed_fields;
  return whole;
}

}  // namespace kueuepp::kube::server
