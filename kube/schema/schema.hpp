#pragma once

// Structural OpenAPI v3 schemas of CustomResourceDefinitions, as kube-apiserver applies
// them: defaulting, pruning of unknown fields, validation (types, formats, enums,
// patterns, bounds, required, list types, int-or-string, quantities) and the CEL rules
// of x-kubernetes-validations. Pure functions over JSON values: no I/O.

#include <memory>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/patch/patch.hpp"

namespace kueuepp::kube::schema {

/// One cause of a 422 Invalid answer, in kube-apiserver's terms.
struct FieldError {
  /// metav1.CauseType: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported,
  /// FieldValueDuplicate, FieldValueTooLong, FieldValueTooMany, FieldValueForbidden, ...
  std::string type;
  /// The field path as the API server prints it: `spec.resourceGroups[0].flavors`,
  /// `metadata.labels[kueue.x-k8s.io/x]`; `<nil>` for a CEL rule at the object root.
  std::string field;
  std::string message;
};

/// A compiled schema for one version of one CRD.
class Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

/// Compiles `openAPIV3Schema`. The error names the schema path that is not supported.
Expected<SchemaPtr> compile(const json::value& openapi_v3_schema);

/// Fills in `default` values (recursively, as the API server does on read and write).
void apply_defaults(const Schema& schema, json::value& object);

/// Removes fields the schema does not declare (respecting
/// x-kubernetes-preserve-unknown-fields and embedded resources) and returns their
/// paths, e.g. `spec.foo`, for the `unknown field "spec.foo"` warnings.
std::vector<std::string> prune(const Schema& schema, json::value& object);

/// Validates `object` (after defaulting and pruning). `old_object` is the stored object
/// on update (null on create); CEL transition rules (those that use oldSelf) run only
/// when it is given.
std::vector<FieldError> validate(const Schema& schema, const json::value& object,
                                 const json::value* old_object);

/// List strategies from x-kubernetes-list-type / x-kubernetes-list-map-keys, for
/// server-side apply of custom resources.
patch::ListStrategyResolver list_strategies(SchemaPtr schema);

}  // namespace kueuepp::kube::schema
