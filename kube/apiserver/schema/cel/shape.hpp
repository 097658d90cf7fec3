#pragma once

// What CEL needs to know about the schema of a JSON value, as kube-apiserver's
// UnstructuredToVal uses it: whether a number is an int or a double, which child schema
// a field or element has, how a list compares for equality (x-kubernetes-list-type), and
// whether an object's fields are declared properties (names escaped) or map keys.
// The compiled schema nodes implement it; CEL itself knows nothing else about schemas.

#include <span>
#include <string>
#include <string_view>

namespace kueuepp::kube::schema::cel {

class Shape {
 public:
  enum class Type : unsigned char { Any, Object, Array, String, Integer, Number, Boolean, IntOrString };
  enum class ListType : unsigned char { Atomic, Set, Map };

  virtual ~Shape() = default;

  virtual Type cel_type() const = 0;
  /// True when object fields are declared `properties` (CEL escapes their names, e.g.
  /// `x__dash__y` for `x-y`); false for maps (additionalProperties) and free-form objects.
  virtual bool cel_has_properties() const = 0;
  /// The schema of field `name` (a property, else additionalProperties), or nullptr.
  virtual const Shape* cel_field(std::string_view name) const = 0;
  /// The schema of array elements, or nullptr.
  virtual const Shape* cel_items() const = 0;
  virtual ListType cel_list_type() const = 0;
  virtual std::span<const std::string> cel_list_map_keys() const = 0;
};

}  // namespace kueuepp::kube::schema::cel
