#pragma once

// A Kubernetes object as a thin view over its JSON document. The document is kept
// whole, so fields this code does not know (added by newer servers or other clients)
// survive a read-modify-write: an update never drops what another client wrote.
// Typed kinds (kube/client/kinds/*.hpp) derive from Object and add accessors.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/client/conditions.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::client {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
};

using StringMap = std::map<std::string, std::string>;
using JsonPath = std::initializer_list<std::string_view>;

class Object {
 public:
  /// An empty object `{}`.
  Object();
  /// Takes a document; a non-object value is replaced by `{}` (use from_json to check).
  explicit Object(json::value document);
  /// Fails unless `document` is a JSON object.
  static Expected<Object> from_json(json::value document);

  const json::value& json() const { return doc_; }
  json::value& json() { return doc_; }
  json::value release() && { return std::move(doc_); }

  // -- type ----------------------------------------------------------------------
  std::string_view api_version() const;
  std::string_view kind() const;
  void set_type(std::string_view api_version, std::string_view kind);

  // -- metadata ------------------------------------------------------------------
  std::string_view name() const;
  void set_name(std::string_view name);
  std::string_view generate_name() const;
  void set_generate_name(std::string_view prefix);
  std::string_view namespace_name() const;
  void set_namespace(std::string_view ns);
  std::string_view uid() const;
  std::string_view resource_version() const;
  void set_resource_version(std::string_view rv);
  /// 0 when absent.
  std::int64_t generation() const;
  std::string_view creation_timestamp() const;
  std::optional<std::string_view> deletion_timestamp() const;
  bool being_deleted() const { return deletion_timestamp().has_value(); }
  /// `namespace/name`, or `name` for cluster-scoped objects (for messages and keys).
  std::string key() const;

  StringMap labels() const;
  std::optional<std::string_view> label(std::string_view key) const;
  void set_label(std::string_view key, std::string_view value);
  bool remove_label(std::string_view key);

  StringMap annotations() const;
  std::optional<std::string_view> annotation(std::string_view key) const;
  void set_annotation(std::string_view key, std::string_view value);
  bool remove_annotation(std::string_view key);

  std::vector<OwnerReference> owner_references() const;
  /// The owner reference with controller=true, if any.
  std::optional<OwnerReference> controller_reference() const;
  /// Adds `ref`, or replaces the entry with the same uid (keeping its unknown fields).
  void set_owner_reference(const OwnerReference& ref);

  std::vector<std::string> finalizers() const;
  bool has_finalizer(std::string_view finalizer) const;
  /// Returns true when the list changed.
  bool add_finalizer(std::string_view finalizer);
  bool remove_finalizer(std::string_view finalizer);

  // -- status.conditions (Kubernetes condition semantics, see conditions.hpp) -----
  std::vector<Condition> conditions() const;
  std::optional<Condition> condition(std::string_view type) const;
  /// True when condition `type` exists with status "True".
  bool condition_true(std::string_view type) const;
  /// `now` is the RFC 3339 time used for lastTransitionTime when the status changes.
  bool set_condition(const Condition& condition, std::string_view now);
  bool remove_condition(std::string_view type);

  // -- generic access (for fields without a typed accessor) -------------------------
  /// The value at a path of object keys, or nullptr.
  const json::value* find(JsonPath path) const;
  /// The value at `path`, creating objects along the way (a non-object in the way is
  /// replaced); a new leaf is null.
  json::value& ensure(JsonPath path);
  /// Removes the value at `path`; true when something was removed.
  bool erase(JsonPath path);
  std::string_view string_at(JsonPath path) const;
  std::optional<std::int64_t> int_at(JsonPath path) const;
  std::optional<bool> bool_at(JsonPath path) const;
  StringMap string_map_at(JsonPath path) const;
  /// Replaces the map at `path` (an empty map removes the field).
  void set_string_map(JsonPath path, const StringMap& map);

 protected:
  json::value doc_;
};

/// The objects of a list answer plus its metadata.
struct ObjectList {
  std::vector<Object> items;
  std::string resource_version;
  std::string continue_token;
  std::optional<std::int64_t> remaining_item_count;
};

}  // namespace kueuepp::kube::client
