#include "kube/apiserver/server/strategy/builtin_strategy.hpp"

#include <fmt/format.h>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/field_error.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

patch::ListStrategyResolver BuiltinStrategy::strategic_lists() const {
  if (lists_) return lists_->strategic();
  return patch::builtin_list_strategies(group_, kind_);
}

patch::ListStrategyResolver BuiltinStrategy::apply_lists() const {
  if (lists_) return lists_->apply();
  return patch::builtin_apply_list_strategies(group_, kind_);
}

patch::AtomicObjectResolver BuiltinStrategy::apply_atomic_objects() const {
  if (lists_) return lists_->atomic_objects();
  return patch::builtin_atomic_objects(group_, kind_);
}

ApiStatus BuiltinStrategy::check_field_types(const json::object& body, const WriteContext& ctx, std::string_view base,
                                             std::span<const TypedField> fields) const {
  auto problem = wrong_field_type(body, base, fields);
  if (!problem) return {};
  if (ctx.patch_result) {
    FieldErrors causes{invalid_error("patch", json::value(json::dump(body)), *problem)};
    return api_fail(invalid("", "", "", causes));
  }
  return api_fail(bad_request(
      fmt::format("{} in version \"{}\" cannot be handled as a {}: {}", kind_, ctx.view->version, kind_, *problem)));
}

ApiStatus check_micro_time(const json::value* v, std::string_view kind, std::string_view version) {
  if (v == nullptr || v->is_null()) return {};
  std::string_view text = v->is_string() ? std::string_view(v->get_string()) : std::string_view();
  if (v->is_string() && is_micro_time(text)) return {};
  return api_fail(bad_request(fmt::format(
      "{} in version \"{}\" cannot be handled as a {}: parsing time \"{}\" as \"2006-01-02T15:04:05.000000Z07:00\": "
      "cannot parse \"{}\" as \".000000\"",
      kind, version, kind, text, text.size() > 19 ? text.substr(19) : text)));
}

const json::value* at(const json::object& obj, std::initializer_list<std::string_view> path) {
  const json::object* cur = &obj;
  const json::value* v = nullptr;
  for (std::string_view key : path) {
    if (cur == nullptr) return nullptr;
    v = cur->if_contains(key);
    if (v == nullptr) return nullptr;
    cur = v->if_object();
  }
  return v;
}

std::optional<std::int64_t> int_at(const json::object& obj, std::initializer_list<std::string_view> path) {
  const json::value* v = at(obj, path);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
  return std::nullopt;
}

json::object& object_member(json::object& obj, std::string_view key) {
  json::value& v = obj[key];
  if (!v.is_object()) v = json::object{};
  return v.as_object();
}

std::string_view string_at(const json::object& obj, std::initializer_list<std::string_view> path) {
  const json::value* v = at(obj, path);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

bool unset(const json::object& obj, std::string_view key) {
  const json::value* v = obj.if_contains(key);
  return v == nullptr || v->is_null();
}

void set_default(json::object& obj, std::string_view key, json::value value) {
  if (unset(obj, key)) obj[key] = std::move(value);
}

void default_string(json::object& obj, std::string_view key, std::string_view value) {
  const json::value* v = obj.if_contains(key);
  if (v == nullptr || v->is_null() || (v->is_string() && v->get_string().empty())) obj[key] = value;
}

void order_members(json::object& obj, std::span<const std::string_view> order) {
  json::object ordered;
  ordered.reserve(obj.size());
  for (std::string_view k : order) {
    if (auto* v = obj.if_contains(k)) ordered[k] = std::move(*v);
  }
  for (auto& kv : obj) {
    if (!ordered.contains(kv.key())) ordered[kv.key()] = std::move(kv.value());
  }
  obj = std::move(ordered);
}

}  // namespace kueuepp::kube::server
