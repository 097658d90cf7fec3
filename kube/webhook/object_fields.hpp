#pragma once

// Small readers of an object under review (a JSON document that may be anything): its
// labels and annotations, and values at a path, never throwing on a wrong type.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "kube/json/json.hpp"

namespace kueuepp::kube::webhook {

const json::value* at_path(const json::value& v, std::initializer_list<std::string_view> path);
/// metadata.labels[key] / metadata.annotations[key]; nullopt when absent or not a string.
std::optional<std::string_view> label_of(const json::value& object, std::string_view key);
std::optional<std::string_view> annotation_of(const json::value& object, std::string_view key);
std::optional<std::int64_t> int_at(const json::value& v, std::initializer_list<std::string_view> path);
std::optional<bool> bool_at(const json::value& v, std::initializer_list<std::string_view> path);
std::string_view string_at(const json::value& v, std::initializer_list<std::string_view> path);

}  // namespace kueuepp::kube::webhook
