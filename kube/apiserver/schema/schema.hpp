#pragma once

// Structural OpenAPI v3 schemas of CustomResourceDefinitions, as kube-apiserver applies
// them: defaulting, pruning of unknown fields, validation (types, formats, enums,
// patterns, bounds, required, list types, int-or-string, quantities) and the CEL rules
// of x-kubernetes-validations. Pure functions over JSON values: no I/O.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/schema/validation_stamp.hpp"

namespace kueuepp::kube::schema {

/// One cause of a 422 Invalid answer, in kube-apiserver's terms.
struct FieldError {
  /// metav1.CauseType: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported,
  /// FieldValueDuplicate, FieldValueTooLong, FieldValueTooMany, FieldValueForbidden, ...
  std::string type;
  /// The field path as the API server prints it: `spec.resourceGroups[0].flavors`,
  /// `metadata.labels[kueue.x-k8s.io/x]`; `<nil>` for a CEL rule at the object root.
  std::string field;
  /// The cause's message as kube-apiserver words it (field.Error's ErrorBody, without
  /// the field): `Required value`, `Invalid value: "abc": spec.x in body should match
  /// '^a$'`, `Unsupported value: "Foo": supported values: "A", "B"`.
  std::string message;
};

/// A compiled schema for one version of one CRD. Immutable once compiled: share it
/// across threads freely. Typical use per write: prune(), apply_defaults(), validate().
class Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

/// Compiles `openAPIV3Schema` (patterns and CEL rules included, once). The error names
/// the schema path that is malformed or not supported ($ref, patternProperties, ...);
/// a CEL rule that does not compile is not an error here (see rule_compile_errors).
Expected<SchemaPtr> compile(const json::value& openapi_v3_schema);

/// Fills in `default` values (recursively, as the API server does on read and write):
/// a property's default applies when the property is absent (or null and not nullable),
/// defaults nest inside defaulted values, and apply in array items and map values.
/// Call after prune(), as kube-apiserver's decoder does.
void apply_defaults(const Schema& schema, json::value& object);

/// Removes fields the schema does not declare (respecting
/// x-kubernetes-preserve-unknown-fields and embedded resources) and returns their
/// paths, e.g. `spec.foo`, for the `unknown field "spec.foo"` warnings. The paths are
/// sorted (`spec.resourceGroups[0].foo`); apiVersion, kind and metadata are kept at the
/// root and in embedded resources. Like kube-apiserver's decoder it then also drops
/// null values of non-nullable fields that have no default (silently).
std::vector<std::string> prune(const Schema& schema, json::value& object);

/// Validates `object` (after defaulting and pruning). `old_object` is the stored object
/// on update (null on create); CEL transition rules (those that use oldSelf) run only
/// when it is given.
std::vector<FieldError> validate(const Schema& schema, const json::value& object,
                                 const json::value* old_object);

/// Options of the full validate(). kube-apiserver skips the CEL rules when any error found
/// so far is "blocking" (Required, TooLong, TooMany, TypeInvalid: the object does not have
/// the shape the rules were written for) and reports one extra `<nil>` cause "some
/// validation rules were not checked ..." instead; errors the caller found itself
/// (ObjectMeta validation, which runs first upstream) count too.
struct ValidateOptions {
  std::span<const FieldError> prior_errors;
  /// CEL cost budget for the whole object (kube-apiserver's RuntimeCELCostBudget).
  std::uint64_t cel_cost_budget = 10'000'000;
  /// The old object's stamp. When it names this schema, the parts of the object identical
  /// to the old object's at the same place (outside the root's metadata) are not checked
  /// again: they pass as they did. CEL transition rules (oldSelf) still run everywhere.
  /// The errors are exactly those of a full validation.
  ValidationStamp old_stamp;
  /// Receives the object's stamp when no errors are found (left alone otherwise).
  ValidationStamp* stamp = nullptr;
  /// With old_stamp: the only top-level members of the object that may differ from the
  /// old object's, the caller knowing the others exact copies of them (they are then
  /// taken as unchanged without comparing them). Empty: any member may differ.
  std::span<const std::string_view> changeable;
};

/// validate() taking the caller's earlier errors into account (see ValidateOptions).
/// Returns only the schema's errors, in kube-apiserver's order: OpenAPI errors, embedded
/// resource errors, list-type map/set duplicates, then CEL rule errors (or the
/// "not checked" cause).
std::vector<FieldError> validate(const Schema& schema, const json::value& object,
                                 const json::value* old_object, const ValidateOptions& options);

/// A number no other compiled schema of this process has (never 0): what a
/// ValidationStamp names.
std::uint64_t serial(const Schema& schema);

/// Whether kube-apiserver (1.28) treats this error as blocking CEL evaluation.
bool blocks_cel(const FieldError& error);

/// The text of kube-apiserver's aggregated validation error, as it appears after
/// `... is invalid: `: `field: message` for one error, `[a: m1, b: m2]` for several
/// (identical entries once), "" for none.
std::string describe(std::span<const FieldError> errors);

/// The x-kubernetes-validations rules (and messageExpressions) that did not compile, as
/// `<schema path>: <error>`. kube-apiserver refuses such CRDs; validate() reports each
/// such rule as a `rule compile error` cause on the objects it applies to.
std::vector<std::string> rule_compile_errors(const Schema& schema);

/// List strategies from x-kubernetes-list-type / x-kubernetes-list-map-keys, for
/// server-side apply of custom resources.
patch::ListStrategyResolver list_strategies(SchemaPtr schema);
/// The objects and maps server-side apply owns whole (x-kubernetes-map-type: atomic).
patch::AtomicObjectResolver atomic_objects(SchemaPtr schema);

}  // namespace kueuepp::kube::schema
