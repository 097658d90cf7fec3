#include "kube/conversion/document_path.hpp"

#include <fmt/format.h>

namespace kueuepp::kube::conversion {

namespace {

// One walk for both constnesses.
template <class Value>
Value* walk(Value& document, const DocumentPath& path) {
  Value* at = &document;
  for (const auto& step : path) {
    if (const auto* key = std::get_if<std::string>(&step)) {
      at = json::find(*at, *key);
    } else {
      const auto index = std::get<std::size_t>(step);
      auto* array = at->if_array();
      at = array != nullptr && index < array->size() ? &(*array)[index] : nullptr;
    }
    if (at == nullptr) return nullptr;
  }
  return at;
}

}  // namespace

const json::value* value_at(const json::value& document, const DocumentPath& path) { return walk(document, path); }
json::value* value_at(json::value& document, const DocumentPath& path) { return walk(document, path); }

Status set_value_at(json::value& document, const DocumentPath& path, json::value v) {
  json::value* at = &document;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      auto* object = at->if_object();
      if (object == nullptr) return fail(fmt::format("{} is not an object", describe_path({path.begin(), path.begin() + static_cast<std::ptrdiff_t>(i)})));
      at = &(*object)[*key];
      if (i + 1 < path.size() && at->is_null() && std::holds_alternative<std::string>(path[i + 1])) at->emplace_object();
    } else {
      const auto index = std::get<std::size_t>(path[i]);
      auto* array = at->if_array();
      if (array == nullptr || index >= array->size()) {
        return fail(fmt::format("{} has no element {}", describe_path({path.begin(), path.begin() + static_cast<std::ptrdiff_t>(i)}), index));
      }
      at = &(*array)[index];
    }
  }
  *at = std::move(v);
  return {};
}

void erase_value_at(json::value& document, const DocumentPath& path) {
  if (path.empty()) return;
  const DocumentPath parent_path(path.begin(), path.end() - 1);
  auto* parent = value_at(document, parent_path);
  if (parent == nullptr) return;
  if (const auto* key = std::get_if<std::string>(&path.back())) {
    if (auto* object = parent->if_object()) object->erase(*key);
  } else if (auto* array = parent->if_array()) {
    const auto index = std::get<std::size_t>(path.back());
    if (index < array->size()) array->erase(array->begin() + static_cast<std::ptrdiff_t>(index));
  }
}

json::array path_to_json(const DocumentPath& path) {
  json::array out;
  out.reserve(path.size());
  for (const auto& step : path) {
    if (const auto* key = std::get_if<std::string>(&step)) out.emplace_back(json::string(*key));
    else out.emplace_back(static_cast<std::uint64_t>(std::get<std::size_t>(step)));
  }
  return out;
}

Expected<DocumentPath> path_from_json(const json::value& v) {
  const auto* array = v.if_array();
  if (array == nullptr || array->empty()) return fail("a path is a non-empty array of keys and indices");
  DocumentPath path;
  path.reserve(array->size());
  for (const auto& step : *array) {
    if (const auto* key = step.if_string()) path.emplace_back(std::string(*key));
    else if (const auto* u = step.if_uint64()) path.emplace_back(static_cast<std::size_t>(*u));
    else if (const auto* i = step.if_int64(); i != nullptr && *i >= 0) path.emplace_back(static_cast<std::size_t>(*i));
    else return fail("a path step is neither a key nor an index: " + json::dump(step));
  }
  return path;
}

std::string describe_path(const DocumentPath& path) {
  std::string out;
  for (const auto& step : path) {
    if (const auto* key = std::get_if<std::string>(&step)) {
      if (!out.empty()) out += '.';
      out += *key;
    } else {
      out += fmt::format("[{}]", std::get<std::size_t>(step));
    }
  }
  return out.empty() ? "the object" : out;
}

}  // namespace kueuepp::kube::conversion
