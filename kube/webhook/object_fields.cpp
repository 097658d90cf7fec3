#include "kube/webhook/object_fields.hpp"

namespace kueuepp::kube::webhook {

const json::value* at_path(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* cur = &v;
  for (std::string_view key : path) {
    if (!cur->is_object()) return nullptr;
    cur = cur->get_object().if_contains(key);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

namespace {

std::optional<std::string_view> metadata_entry(const json::value& object, std::string_view map, std::string_view key) {
  const json::value* v = at_path(object, {"metadata", map, key});
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}

}  // namespace

std::optional<std::string_view> label_of(const json::value& object, std::string_view key) {
  return metadata_entry(object, "labels", key);
}

std::optional<std::string_view> annotation_of(const json::value& object, std::string_view key) {
  return metadata_entry(object, "annotations", key);
}

std::optional<std::int64_t> int_at(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* x = at_path(v, path);
  if (x == nullptr) return std::nullopt;
  if (x->is_int64()) return x->get_int64();
  if (x->is_uint64() && x->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(x->get_uint64());
  }
  return std::nullopt;
}

std::optional<bool> bool_at(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* x = at_path(v, path);
  if (x == nullptr || !x->is_bool()) return std::nullopt;
  return x->get_bool();
}

std::string_view string_at(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* x = at_path(v, path);
  if (x == nullptr || !x->is_string()) return {};
  return x->get_string();
}

}  // namespace kueuepp::kube::webhook
