#include "kube/apiserver/server/registry/crd_types.hpp"

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/custom_resource_strategy.hpp"

namespace kueuepp::kube::server {

namespace {

std::vector<std::string> string_list(const json::value* v) {
  std::vector<std::string> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& e : v->as_array()) {
    if (e.is_string()) out.emplace_back(e.get_string());
  }
  return out;
}

std::vector<PrinterColumn> printer_columns(const json::value& version) {
  std::vector<PrinterColumn> out;
  const json::value* cols = json::find(version, "additionalPrinterColumns");
  if (cols == nullptr || !cols->is_array()) return out;
  for (const auto& c : cols->as_array()) {
    PrinterColumn p;
    p.name = std::string(json::get_string(c, "name"));
    p.type = std::string(json::get_string(c, "type", "string"));
    p.format = std::string(json::get_string(c, "format"));
    p.description = std::string(json::get_string(c, "description"));
    const json::value* prio = json::find(c, "priority");
    p.priority = prio != nullptr && prio->is_int64() ? static_cast<int>(prio->get_int64()) : 0;
    p.json_path = std::string(json::get_string(c, "jsonPath"));
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> selectable_fields(const json::value& version) {
  std::vector<std::string> out;
  const json::value* fields = json::find(version, "selectableFields");
  if (fields == nullptr || !fields->is_array()) return out;
  for (const auto& f : fields->as_array()) {
    std::string_view path = json::get_string(f, "jsonPath");
    if (!path.empty() && path.front() == '.') path.remove_prefix(1);
    if (!path.empty()) out.emplace_back(path);
  }
  return out;
}

}  // namespace

std::vector<ResourceTypePtr> resource_types_from_crd(const json::object& crd, const ConversionCalls& calls,
                                                     std::vector<std::string>& problems) {
  std::vector<ResourceTypePtr> out;
  const json::value* spec = crd.if_contains("spec");
  if (spec == nullptr || !spec->is_object()) return out;
  const json::value* names = json::find(*spec, "names");
  const json::value* versions = json::find(*spec, "versions");
  if (names == nullptr || versions == nullptr || !versions->is_array()) return out;
  std::string group(json::get_string(*spec, "group"));
  std::string plural(json::get_string(*names, "plural"));
  std::string kind(json::get_string(*names, "kind"));
  std::string storage;
  for (const auto& v : versions->as_array()) {
    const json::value* s = json::find(v, "storage");
    if (s != nullptr && s->is_bool() && s->get_bool()) storage = std::string(json::get_string(v, "name"));
  }
  CrdConversion conversion = read_crd_conversion(crd);
  const auto schemas = conversion.schemas;  // compiled once, for conversion and serving
  auto converter = std::make_shared<const CrdConverter>(std::move(conversion), calls);
  for (const auto& v : versions->as_array()) {
    const json::value* served = json::find(v, "served");
    if (served == nullptr || !served->is_bool() || !served->get_bool()) continue;
    auto t = std::make_shared<ResourceType>();
    t->group = group;
    t->version = std::string(json::get_string(v, "name"));
    t->plural = plural;
    t->singular = std::string(json::get_string(*names, "singular"));
    t->kind = kind;
    t->list_kind = std::string(json::get_string(*names, "listKind"));
    if (t->list_kind.empty()) t->list_kind = kind + "List";
    t->namespaced = json::get_string(*spec, "scope") != "Cluster";
    t->short_names = string_list(json::find(*names, "shortNames"));
    t->categories = string_list(json::find(*names, "categories"));
    t->verbs = custom_resource_verbs();
    t->status_subresource = json::find_path(v, {"subresources", "status"}) != nullptr;
    t->custom = true;
    t->storage_version = storage;
    t->bucket = group + "/" + plural;
    t->columns = printer_columns(v);
    t->converter = converter;
    CustomResourceVersion crv;
    crv.group = group;
    crv.version = t->version;
    crv.kind = kind;
    crv.status_subresource = t->status_subresource;
    crv.selectable_fields = selectable_fields(v);
    crv.columns = t->columns;
    if (const json::value* doc = json::find_path(v, {"schema", "openAPIV3Schema"})) {
      auto known = schemas.find(t->version);
      auto compiled = known != schemas.end() ? Expected<schema::SchemaPtr>(known->second) : schema::compile(*doc);
      if (compiled) {
        crv.schema = std::move(*compiled);
      } else {
        problems.push_back(fmt::format("{}/{}: schema not applied: {}", plural, t->version, compiled.error().message));
      }
      t->openapi_schema = std::make_shared<const json::value>(*doc);
    }
    t->strategy = make_custom_resource_strategy(std::move(crv));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace kueuepp::kube::server
