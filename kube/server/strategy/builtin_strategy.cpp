#include "kube/server/strategy/builtin_strategy.hpp"

#include <fmt/format.h>

#include "kube/server/util/time.hpp"

namespace kueuepp::kube::server {

patch::ListStrategyResolver BuiltinStrategy::strategic_lists() const {
  return patch::builtin_list_strategies(group_, kind_);
}

patch::ListStrategyResolver BuiltinStrategy::apply_lists() const {
  return patch::builtin_apply_list_strategies(group_, kind_);
}

patch::AtomicObjectResolver BuiltinStrategy::apply_atomic_objects() const {
  return patch::builtin_atomic_objects(group_, kind_);
}

ApiStatus BuiltinStrategy::check_field_types(const json::object& body, const WriteContext& ctx, std::string_view base,
                                             std::span<const TypedField> fields) const {
  auto problem = wrong_field_type(body, base, fields);
  if (!problem) return {};
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

}  // namespace kueuepp::kube::server
