#pragma once

// The compiled form of one OpenAPI v3 schema node (internal to kube/apiserver/schema). Everything
// validation needs is decoded once at compile time: patterns are compiled regexes, CEL
// rules compiled programs, properties a sorted vector, and each node carries summary
// flags so that defaulting, list-type checks and CEL traversal skip subtrees with
// nothing to do.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/schema/cel/program.hpp"
#include "kube/apiserver/schema/cel/shape.hpp"
#include "kube/apiserver/schema/formats.hpp"
#include "kube/apiserver/schema/regex.hpp"
#include "kube/apiserver/schema/schema.hpp"

namespace kueuepp::kube::schema {

/// One entry of x-kubernetes-validations.
struct Rule {
  std::string rule;
  std::string message;
  std::string message_expression;
  std::string reason;      ///< FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired, FieldValueDuplicate
  std::string field_path;  ///< normalized: `spec.foo`, no leading dot
  bool optional_old_self = false;
  std::shared_ptr<const cel::Program> program;             ///< null when compile_error is set
  std::shared_ptr<const cel::Program> message_program;     ///< messageExpression, if any
  std::string compile_error;
  bool uses_old_self = false;

  /// Reads the old object: a rule with oldSelf (or optionalOldSelf).
  bool transition() const { return uses_old_self || optional_old_self; }
};

/// Variable order of every compiled rule program.
inline constexpr std::size_t kSelf = 0;
inline constexpr std::size_t kOldSelf = 1;

class Node final : public cel::Shape {
 public:
  // --- the schema, as written ------------------------------------------------------
  std::string type;  ///< "object", "array", "string", "integer", "number", "boolean" or ""
  /// `type` as a bit set of the JSON types it admits (int-or-string: integer|string);
  /// 0 when untyped.
  std::uint8_t types = 0;
  static constexpr std::uint8_t kObject = 1, kArray = 2, kString = 4, kInteger = 8, kNumber = 16, kBoolean = 32;
  bool nullable = false;
  bool int_or_string = false;
  bool preserve_unknown_fields = false;
  bool embedded_resource = false;
  std::string format;            ///< as written (error messages)
  Format format_kind = Format::None;
  std::optional<json::value> default_value;
  std::optional<json::array> enum_values;
  std::optional<Regex> pattern;
  std::optional<double> minimum;
  std::optional<double> maximum;
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  std::optional<double> multiple_of;
  std::optional<std::int64_t> min_length, max_length;
  std::optional<std::int64_t> min_items, max_items;
  std::optional<std::int64_t> min_properties, max_properties;
  bool unique_items = false;
  std::vector<std::string> required;

  std::vector<std::pair<std::string, std::unique_ptr<Node>>> properties;  ///< sorted by name
  /// Indices into `properties` ordered by (length, name): lookups compare lengths first
  /// and rarely call memcmp.
  std::vector<std::uint32_t> property_lookup;
  std::unique_ptr<Node> items;
  std::unique_ptr<Node> additional_properties;  ///< a schema (`true` compiles to {})
  bool additional_properties_forbidden = false;  ///< additionalProperties: false

  std::vector<std::unique_ptr<Node>> all_of, any_of, one_of;
  std::unique_ptr<Node> not_;

  cel::Shape::ListType list_type = cel::Shape::ListType::Atomic;
  bool list_type_set = false;  ///< x-kubernetes-list-type given
  std::vector<std::string> list_map_keys;
  std::string map_type;

  std::vector<Rule> rules;
  /// Some rule of this node reads oldSelf (a transition rule).
  bool has_transition_rules = false;
  /// Memo slots of the subexpressions its rules share (cel::Program::share_subexpressions).
  std::size_t cel_memo_slots = 0;

  // --- summaries of the subtree (properties, items, additionalProperties) -----------
  bool subtree_has_defaults = false;
  bool subtree_has_rules = false;
  bool subtree_has_transition_rules = false;
  bool subtree_has_list_invariants = false;  ///< list-type set/map somewhere below
  bool subtree_has_embedded = false;

  const Node* property(std::string_view name) const;
  /// The property schema, else additionalProperties (what pruning and CEL follow).
  const Node* child(std::string_view name) const;

  // --- cel::Shape --------------------------------------------------------------------
  Type cel_type() const override;
  bool cel_has_properties() const override { return !properties.empty(); }
  const cel::Shape* cel_field(std::string_view name) const override { return child(name); }
  const cel::Shape* cel_items() const override { return items.get(); }
  ListType cel_list_type() const override { return list_type; }
  std::span<const std::string> cel_list_map_keys() const override { return list_map_keys; }
};

}  // namespace kueuepp::kube::schema

namespace kueuepp::kube::schema {

class Schema {
 public:
  Node root;
  /// Unique per compiled schema (see serial()).
  std::uint64_t serial = 0;
  /// Every rule that failed to compile, as "<path>: <error>" (for CRD admission).
  std::vector<std::string> rule_compile_errors;
};

}  // namespace kueuepp::kube::schema
