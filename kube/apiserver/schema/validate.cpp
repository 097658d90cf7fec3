// validate(): the passes of validators.hpp in kube-apiserver's order, the rule that a
// blocking error skips the CEL rules (customResourceStrategy.Validate/ValidateUpdate),
// and incremental validation against an old object that passed (unchanged_parts.hpp).

#include <iterator>

#include "kube/apiserver/schema/field_errors.hpp"
#include "kube/apiserver/schema/validators.hpp"

namespace kueuepp::kube::schema {

bool blocks_cel(const FieldError& e) {
  // kube-apiserver 1.28's hasBlockingErr; enum violations (FieldValueNotSupported) only
  // became blocking in later releases (the recorded traces show a lone enum cause).
  return e.type == "FieldValueRequired" || e.type == "FieldValueTooLong" || e.type == "FieldValueTooMany" ||
         e.type == "FieldValueTypeInvalid";
}

namespace {

// The CEL pass. Incremental (skipping the rules without oldSelf in unchanged parts) it
// runs on the budget minus what the skipped rules could have cost, which the old
// object's stamp bounds: when that pass ends with budget to spare, a full pass would not
// have run out either and reports the same errors (the skipped rules pass). Otherwise
// the full pass decides. Returns the new object's stamp cost.
std::uint64_t run_cel(const Node& root, const json::value& object, const json::value* old_object,
                      const UnchangedParts& unchanged, bool incremental, const ValidateOptions& options,
                      std::vector<FieldError>& out) {
  const std::uint64_t budget = options.cel_cost_budget;
  const std::uint64_t skippable = options.old_stamp.cel_cost;
  if (incremental && skippable < budget) {
    std::vector<FieldError> errors;
    CelRun run = validate_cel(root, object, old_object, &unchanged, budget - skippable, errors);
    if (!run.stopped && run.budget_left > 0) {
      out.insert(out.end(), std::make_move_iterator(errors.begin()), std::make_move_iterator(errors.end()));
      return run.cost + (run.skipped ? skippable : 0);
    }
  }
  return validate_cel(root, object, old_object, nullptr, budget, out).cost;
}

}  // namespace

std::vector<FieldError> validate(const Schema& schema, const json::value& object, const json::value* old_object,
                                 const ValidateOptions& options) {
  const Node& root = schema.root;
  // The old object passed against this very schema: what did not change passes as it did.
  const bool incremental =
      old_object != nullptr && schema.serial != 0 && options.old_stamp.schema_serial == schema.serial;
  const UnchangedParts unchanged(object, incremental ? old_object : nullptr, options.changeable);
  std::vector<FieldError> out;
  validate_openapi(root, object, unchanged, out);
  if (root.embedded_resource || root.subtree_has_embedded) validate_embedded_resources(root, object, unchanged, out);
  if (root.list_type != cel::Shape::ListType::Atomic || root.subtree_has_list_invariants) {
    validate_list_types(root, object, unchanged, out);
  }
  std::uint64_t cel_cost = 0;
  if (!root.rules.empty() || root.subtree_has_rules) {
    bool blocked = false;
    for (const auto& e : options.prior_errors) blocked = blocked || blocks_cel(e);
    for (const auto& e : out) blocked = blocked || blocks_cel(e);
    if (blocked) {
      out.push_back(field_errors::invalid(
          "<nil>", "\"null\"",
          "some validation rules were not checked because the object was invalid; correct the existing errors to "
          "complete validation"));
      return out;
    }
    cel_cost = run_cel(root, object, old_object, unchanged, incremental, options, out);
  }
  if (out.empty() && options.stamp != nullptr) *options.stamp = ValidationStamp{schema.serial, cel_cost};
  return out;
}

std::vector<FieldError> validate(const Schema& schema, const json::value& object, const json::value* old_object) {
  return validate(schema, object, old_object, ValidateOptions{});
}

std::string describe(std::span<const FieldError> errors) {
  std::vector<std::string> parts;
  for (const auto& e : errors) {
    std::string text = e.field + ": " + e.message;
    bool seen = false;
    for (const auto& p : parts) seen = seen || p == text;
    if (!seen) parts.push_back(std::move(text));
  }
  if (parts.empty()) return "";
  if (parts.size() == 1) return parts[0];
  std::string out = "[";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  return out + "]";
}

}  // namespace kueuepp::kube::schema
