#include "kube/apiserver/server/strategy/strategy.hpp"

#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

void WriteContext::warn(std::string text) const {
  if (warnings != nullptr) warnings->push_back(std::move(text));
}

ApiResult<json::value> Strategy::decode(json::value body, const WriteContext& ctx) const {
  body.as_object()["apiVersion"] = ctx.view->storage_api_version();
  return body;
}

json::value Strategy::encode(const json::value& stored, const ResourceType& view) const {
  json::value out = stored;
  out.as_object()["apiVersion"] = view.api_version();
  return out;
}

bool Strategy::converts(const ResourceType& view) const { return view.version != view.storage_version; }

Problems Strategy::name_problems(std::string_view name) const { return dns1123_subdomain_problems(name); }

void Strategy::prepare_for_create(json::object& obj, const WriteContext& ctx) const {
  if (ctx.view->status_subresource) obj.erase("status");
}

void Strategy::prepare_for_update(json::object& obj, const json::object& old, const WriteContext& ctx) const {
  if (!ctx.view->status_subresource) return;
  if (!ctx.status) {
    // A main-resource write never changes status.
    if (const json::value* s = old.if_contains("status")) {
      obj["status"] = *s;
    } else {
      obj.erase("status");
    }
    return;
  }
  // A status write changes status (and metadata) only.
  json::object merged;
  for (const auto& [key, value] : old) {
    if (key == "metadata" || key == "status") continue;
    merged[key] = value;
  }
  merged["metadata"] = obj["metadata"];
  if (const json::value* s = obj.if_contains("status")) merged["status"] = *s;
  obj = std::move(merged);
}

FieldErrors Strategy::validate(const json::object&, const WriteContext&) const { return {}; }

FieldErrors Strategy::validate_update(const json::object& obj, const json::object&, const WriteContext& ctx) const {
  return validate(obj, ctx);
}

bool Strategy::generation_changes(const json::object& obj, const json::object& old, const WriteContext&) const {
  auto content = [](const json::object& o) {
    std::size_t n = 0;
    for (const auto& [key, value] : o) {
      if (key != "metadata" && key != "status") ++n;
    }
    return n;
  };
  if (content(obj) != content(old)) return true;
  for (const auto& [key, value] : obj) {
    if (key == "metadata" || key == "status") continue;
    const json::value* before = old.if_contains(key);
    if (before == nullptr || !json::equal(*before, value)) return true;
  }
  return false;
}

std::vector<std::string> Strategy::delete_warnings(std::string_view) const { return {}; }

bool Strategy::holds_deletion(const json::object& obj) const {
  const json::object* meta = metadata_of(obj);
  if (meta == nullptr) return false;
  const json::value* f = meta->if_contains("finalizers");
  return f != nullptr && f->is_array() && !f->as_array().empty();
}

patch::ListStrategyResolver Strategy::apply_lists() const { return {}; }
patch::AtomicObjectResolver Strategy::apply_atomic_objects() const { return {}; }

std::optional<std::string> value_at_path(const json::object& obj, std::string_view dotted) {
  const json::object* cur = &obj;
  const json::value* v = nullptr;
  while (true) {
    std::size_t dot = dotted.find('.');
    std::string_view part = dotted.substr(0, dot);
    v = cur->if_contains(part);
    if (v == nullptr) return std::string();
    if (dot == std::string_view::npos) break;
    cur = v->if_object();
    if (cur == nullptr) return std::string();
    dotted.remove_prefix(dot + 1);
  }
  if (const auto* s = v->if_string()) return std::string(*s);
  if (v->is_null()) return std::string();
  return json::dump(*v);
}

std::optional<std::string> Strategy::field_value(const json::object& obj, std::string_view field) const {
  for (const auto& f : selectable_fields()) {
    if (f == field) return value_at_path(obj, field);
  }
  return std::nullopt;
}

std::vector<PrinterColumn> Strategy::columns(const ResourceType&) const {
  return {PrinterColumn{"Age", "date", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ".metadata.creationTimestamp"}};
}

json::array Strategy::cells(const json::object& obj, const ResourceType&) const {
  return json::array{json::value(age_of(obj))};
}

std::span<const std::string_view> changeable_members(const WriteContext& ctx) {
  static constexpr std::string_view kStatus[] = {"status"};
  if (ctx.status_alone) return kStatus;
  return {};
}

}  // namespace kueuepp::kube::server
