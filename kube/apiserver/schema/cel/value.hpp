#pragma once

// CEL runtime values. Lists and maps read straight from the Boost.JSON document under
// validation (with the schema Shape that types them) instead of being converted: a rule
// like `self.spec.podSets.all(p, ...)` touches only what it reads. Values built by the
// expression (literals, map()/filter() results, concatenations) own their storage.
// Errors are values too, so `false && <error>` can be false as CEL requires.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/schema/cel/shape.hpp"

namespace kueuepp::kube::schema::cel {

enum class Kind : std::uint8_t { Null, Bool, Int, Uint, Double, String, Bytes, List, Map, Type, Optional, Error };

/// CEL's name of a kind's type: "int", "list", "null_type", ...
std::string_view kind_name(Kind k);

class Value {
 public:
  Value() = default;  // null

  static Value null() { return {}; }
  static Value boolean(bool b);
  static Value integer(std::int64_t i);
  static Value uinteger(std::uint64_t u);
  static Value real(double d);
  /// A string that outlives the value (a JSON document, an AST literal).
  static Value borrowed_string(std::string_view s);
  static Value string(std::string s);
  static Value bytes(std::string s);
  static Value list(std::vector<Value> items);
  /// keys[i] maps to values[i]; callers guarantee distinct keys.
  static Value map(std::vector<Value> keys, std::vector<Value> values);
  /// `name` must be a string literal (type names are static).
  static Value type(std::string_view name);
  static Value optional_none();
  static Value optional_of(Value v);
  static Value error(std::string message);
  /// `message` must be a string literal.
  static Value static_error(std::string_view message);
  /// A view of `v` typed by `shape` (may be null: untyped JSON).
  static Value from_json(const json::value& v, const Shape* shape);

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool is_error() const { return kind_ == Kind::Error; }

  bool as_bool() const { return scalar_.b; }
  std::int64_t as_int() const { return scalar_.i; }
  std::uint64_t as_uint() const { return scalar_.u; }
  double as_double() const { return scalar_.d; }
  /// String and Bytes contents, a Type's name, an Error's message.
  std::string_view text() const { return text_; }

  /// Lists: element count; maps: entry count.
  std::size_t size() const;
  Value element(std::size_t i) const;
  /// Map entries in document/insertion order.
  Value key_at(std::size_t i) const;
  Value value_at(std::size_t i) const;
  /// Map lookup with CEL key equality; false when absent.
  bool find(const Value& key, Value& out) const;
  /// Field selection `m.f`: `name` as written, `unescaped` the property it denotes when
  /// the map is a schema object with declared properties.
  bool select(std::string_view name, std::string_view unescaped, Value& out) const;
  /// select() with the field's schema known in advance when this map's schema is
  /// `expected` (see Expr::child_shape).
  bool select(std::string_view name, std::string_view unescaped, Value& out, const Shape* expected,
              const Shape* child) const;
  /// Element `i` of a list, with the element schema known in advance as for select().
  Value element(std::size_t i, const Shape* expected, const Shape* child) const;
  const Shape* shape() const { return shape_; }

  /// Optional: whether it holds a value, and that value.
  bool has_value() const;
  Value optional_value() const;

  /// JSON-backed lists: the x-kubernetes-list-type that defines their equality.
  Shape::ListType list_type() const;
  std::span<const std::string> list_map_keys() const;

 private:
  struct Heap {
    std::string text;
    std::vector<Value> items;  // list elements, map values, optional payload
    std::vector<Value> keys;   // map keys
  };

  Kind kind_ = Kind::Null;
  union Scalar {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double d;
  } scalar_{.i = 0};
  std::string_view text_;
  const json::value* json_ = nullptr;  // JSON-backed list or map
  const Shape* shape_ = nullptr;
  std::shared_ptr<const Heap> heap_;
};

}  // namespace kueuepp::kube::schema::cel
