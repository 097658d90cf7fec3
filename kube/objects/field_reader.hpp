#pragma once

// Typed, path-aware reading of Kubernetes JSON objects: every getter names the field it
// read (`spec.resourceGroups[0].flavors[1].resources[0].nominalQuota`) when the value is
// missing or of the wrong type, and the first error is kept for the caller. Values are
// read through json::JsonNode (a Boost.JSON pointer converts to one), so a decoder
// written against nodes reads Boost.JSON documents and simdjson-parsed text alike.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "core/model/labels.hpp"
#include "core/model/time.hpp"
#include "core/quantity.hpp"
#include "kube/json/json.hpp"
#include "kube/json/json_node.hpp"

namespace kueuepp::kube {

class FieldReader {
 public:
  /// `what` names the object in errors, e.g. `ClusterQueue "cq-a"`.
  explicit FieldReader(std::string what) : what_(std::move(what)) {}

  bool failed() const { return !error_.empty(); }
  Error error() const { return Error{error_}; }
  /// Records an error at `path` (only the first one is kept).
  void fail(std::string_view path, std::string_view message);

  /// The member `key` of `obj`, or nullptr (also nullptr for JSON null).
  static const json::value* get(const json::value* obj, std::string_view key);
  /// The member `key` of `obj`; absent when missing or JSON null.
  static json::JsonNode get(json::JsonNode obj, std::string_view key);

  const json::object* object(const json::value* v, std::string_view path);
  const json::array* array(const json::value* v, std::string_view path);
  /// `v` when it is an object (a list); absent, with an error, when it is something else.
  json::JsonNode object(json::JsonNode v, std::string_view path);
  json::JsonNode array(json::JsonNode v, std::string_view path);
  std::string string(json::JsonNode v, std::string_view path, std::string fallback = {});
  std::optional<std::int64_t> integer(json::JsonNode v, std::string_view path);
  std::optional<bool> boolean(json::JsonNode v, std::string_view path);
  std::optional<core::Quantity> quantity(json::JsonNode v, std::string_view path);
  std::optional<core::Time> time(json::JsonNode v, std::string_view path);
  std::vector<std::string> strings(json::JsonNode v, std::string_view path);
  core::Labels string_map(json::JsonNode v, std::string_view path);
  /// One of `allowed` (exact), or the fallback when absent.
  std::string enumeration(json::JsonNode v, std::string_view path,
                          std::initializer_list<std::string_view> allowed, std::string fallback);
  std::optional<core::LabelSelector> label_selector(json::JsonNode v, std::string_view path);

 private:
  std::string what_;
  std::string error_;
};

/// `Kind "namespace/name"`, for the FieldReader of an object.
std::string describe_object(std::string_view kind, json::JsonNode obj);
std::string describe_object(std::string_view kind, const json::value& obj);

/// path + "." + key, or path + "[i]".
std::string sub(std::string_view path, std::string_view key);
std::string sub(std::string_view path, std::size_t index);

}  // namespace kueuepp::kube
