#pragma once

// Sets of field paths, as structured-merge-diff (and so kube-apiserver's managedFields)
// has them: a path is a sequence of path elements (a field name, the key of a list-map
// element, the value of a set element, or an index), and a set is a tree of them where a
// node may itself be a member. Serialized in the "FieldsV1" format of managedFields:
//
//   {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
//    "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}}}}}

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::patch::detail {

struct PathElement {
  enum class Type : std::uint8_t { Field, Key, Value, Index };
  Type type = Type::Field;
  std::string field;        ///< Field: the member name
  json::value value;        ///< Key: the key fields (an object, sorted by name); Value: the element
  std::int64_t index = 0;   ///< Index

  static PathElement of_field(std::string_view name);
  static PathElement of_key(json::object fields);  ///< sorts the fields by name
  static PathElement of_value(const json::value& v);

  /// structured-merge-diff's order: fields < keys < values < indexes, then by content.
  int compare(const PathElement& other) const;
  bool operator==(const PathElement& other) const { return compare(other) == 0; }

  /// The FieldsV1 key: `f:name`, `k:{"name":"c"}`, `v:"x"`, `i:0`.
  std::string serialize() const;
  /// As kube-apiserver prints paths in conflicts: `.name`, `[name="c"]`, `[="x"]`, `[0]`.
  std::string display() const;
};

using Path = std::vector<PathElement>;

/// `.spec.containers[name="c"].image`
std::string display_path(std::span<const PathElement> path);

/// Compact JSON with object keys sorted and numbers printed like Go (80, 0.5): the
/// canonical text of list keys and set values.
std::string canonical_json(const json::value& v);

class FieldSet {
 public:
  struct Child;

  bool empty() const { return children_.empty(); }
  /// Adds `path` as a member (its ancestors become nodes, not members).
  void insert(std::span<const PathElement> path);
  /// True when `path` is a member.
  bool has(std::span<const PathElement> path) const;
  /// The node at `path` (member or not), or nullptr.
  const FieldSet* node(std::span<const PathElement> path) const;
  /// True when the node at `path` exists, i.e. `path` or something below it is a member.
  bool touches(std::span<const PathElement> path) const { return node(path) != nullptr; }

  FieldSet united(const FieldSet& other) const;
  FieldSet minus(const FieldSet& other) const;
  FieldSet intersected(const FieldSet& other) const;

  /// Calls `f` for every member path, in order.
  void for_each_member(const std::function<void(const Path&)>& f) const;

  /// The FieldsV1 object.
  json::object to_fields_v1() const;
  /// Parses a FieldsV1 object; unknown path element types are skipped (as upstream does).
  static Expected<FieldSet> from_fields_v1(const json::value& fields);

  bool operator==(const FieldSet& other) const;

  const std::vector<Child>& children() const { return children_; }

 private:
  Child* find_child(const PathElement& pe);
  const Child* find_child(const PathElement& pe) const;
  Child& child(const PathElement& pe);  ///< finds or inserts, keeping the order
  void for_each_member_at(Path& prefix, const std::function<void(const Path&)>& f) const;
  /// One sorted merge of both child lists, recursively (union, difference, intersection).
  static FieldSet combine(const FieldSet& a, const FieldSet& b, int op);

  std::vector<Child> children_;  ///< sorted by PathElement::compare
};

struct FieldSet::Child {
  PathElement element;
  bool member = false;
  FieldSet set;
};

}  // namespace kueuepp::kube::patch::detail
