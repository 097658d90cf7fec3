#pragma once

// The passes validate() runs, in kube-apiserver's order (internal to kube/apiserver/schema):
//  1. OpenAPI value validation (kube-openapi's SchemaValidator, errors converted as
//     apiextensions' ValidateCustomResource does),
//  2. embedded resources (apiVersion/kind of x-kubernetes-embedded-resource objects),
//  3. list-type invariants (no duplicate set elements / map keys),
//  4. CEL rules (x-kubernetes-validations), unless an earlier error is blocking.

#include <cstdint>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/schema/node.hpp"
#include "kube/apiserver/schema/unchanged_parts.hpp"

namespace kueuepp::kube::schema {

// `unchanged`: the parts that pass as they did (unchanged_parts.hpp), not checked again;
// none for a full validation.
void validate_openapi(const Node& root, const json::value& object, const UnchangedParts& unchanged,
                      std::vector<FieldError>& out);
void validate_embedded_resources(const Node& root, const json::value& object, const UnchangedParts& unchanged,
                                 std::vector<FieldError>& out);
void validate_list_types(const Node& root, const json::value& object, const UnchangedParts& unchanged,
                         std::vector<FieldError>& out);

/// How a CEL pass went.
struct CelRun {
  /// Stopped before every rule ran: out of budget, or a call over its cost limit.
  bool stopped = false;
  /// Budget left at the end.
  std::uint64_t budget_left = 0;
  /// What the rules without oldSelf that ran cost.
  std::uint64_t cost = 0;
  /// Some rule without oldSelf was skipped (in an unchanged part).
  bool skipped = false;
};
/// `old_object` may be null (create); `unchanged` as above (null: none). `budget` is the
/// remaining cost budget.
CelRun validate_cel(const Node& root, const json::value& object, const json::value* old_object,
                    const UnchangedParts* unchanged, std::uint64_t budget, std::vector<FieldError>& out);

}  // namespace kueuepp::kube::schema
