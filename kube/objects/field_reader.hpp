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

/// A field's path (`spec.podSets[0].template`), spelled out only when an error names
/// it: a decoder names every field it reads, and building each name up front was a
/// fifth of decoding a Workload. A path made from a parent (sub) refers to it, so the
/// parent must outlive it: a named path, or a temporary in the same call. A parent
/// that is itself a temporary is refused at compile time (sub's deleted overloads).
class FieldPath {
 public:
  FieldPath(const char* text) : text_(text) {}              // NOLINT: implicit on purpose
  FieldPath(std::string_view text) : text_(text) {}         // NOLINT
  FieldPath(const std::string& text) : text_(text) {}       // NOLINT
  FieldPath(std::string&&) = delete;                        // would refer to a dead string
  FieldPath(const FieldPath& parent, std::string_view key) : parent_(&parent), text_(key) {}
  FieldPath(const FieldPath& parent, std::size_t index) : parent_(&parent), index_(index), indexed_(true) {}
  FieldPath(const FieldPath&) = default;
  FieldPath& operator=(const FieldPath&) = delete;

  /// `parent.key`, `parent[index]`, or the text (a key alone when the parent is empty).
  std::string str() const;

 private:
  void append_to(std::string& out) const;

  const FieldPath* parent_ = nullptr;
  std::string_view text_;
  std::size_t index_ = 0;
  bool indexed_ = false;
};

/// path.key and path[index], spelled out when an error names them.
inline FieldPath sub(const FieldPath& path, std::string_view key) { return FieldPath(path, key); }
inline FieldPath sub(const FieldPath& path, std::size_t index) { return FieldPath(path, index); }
FieldPath sub(FieldPath&& path, std::string_view key) = delete;  // the temporary would dangle
FieldPath sub(FieldPath&& path, std::size_t index) = delete;

class FieldReader {
 public:
  /// `what` names the object in errors, e.g. `ClusterQueue "cq-a"`.
  explicit FieldReader(std::string what) : what_(std::move(what)) {}

  bool failed() const { return !error_.empty(); }
  Error error() const { return Error{error_}; }
  /// Records an error at `path` (only the first one is kept).
  void fail(const FieldPath& path, std::string_view message);

  /// The member `key` of `obj`, or nullptr (also nullptr for JSON null).
  static const json::value* get(const json::value* obj, std::string_view key);
  /// The member `key` of `obj`; absent when missing or JSON null.
  static json::JsonNode get(json::JsonNode obj, std::string_view key);

  const json::object* object(const json::value* v, const FieldPath& path);
  const json::array* array(const json::value* v, const FieldPath& path);
  /// `v` when it is an object (a list); absent, with an error, when it is something else.
  json::JsonNode object(json::JsonNode v, const FieldPath& path);
  json::JsonNode array(json::JsonNode v, const FieldPath& path);
  std::string string(json::JsonNode v, const FieldPath& path, std::string fallback = {});
  std::optional<std::int64_t> integer(json::JsonNode v, const FieldPath& path);
  std::optional<bool> boolean(json::JsonNode v, const FieldPath& path);
  std::optional<core::Quantity> quantity(json::JsonNode v, const FieldPath& path);
  std::optional<core::Time> time(json::JsonNode v, const FieldPath& path);
  std::vector<std::string> strings(json::JsonNode v, const FieldPath& path);
  core::Labels string_map(json::JsonNode v, const FieldPath& path);
  /// One of `allowed` (exact), or the fallback when absent.
  std::string enumeration(json::JsonNode v, const FieldPath& path,
                          std::initializer_list<std::string_view> allowed, std::string fallback);
  std::optional<core::LabelSelector> label_selector(json::JsonNode v, const FieldPath& path);

 private:
  std::string what_;
  std::string error_;
};

/// `Kind "namespace/name"`, for the FieldReader of an object.
std::string describe_object(std::string_view kind, json::JsonNode obj);
std::string describe_object(std::string_view kind, const json::value& obj);


}  // namespace kueuepp::kube
