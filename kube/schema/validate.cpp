// validate(): the passes of validators.hpp in kube-apiserver's order, and the rule that
// a blocking error skips the CEL rules (customResourceStrategy.Validate/ValidateUpdate).

#include "kube/schema/field_errors.hpp"
#include "kube/schema/validators.hpp"

namespace kueuepp::kube::schema {

bool blocks_cel(const FieldError& e) {
  // kube-apiserver 1.28's hasBlockingErr; enum violations (FieldValueNotSupported) only
  // became blocking in later releases (the recorded traces show a lone enum cause).
  return e.type == "FieldValueRequired" || e.type == "FieldValueTooLong" || e.type == "FieldValueTooMany" ||
         e.type == "FieldValueTypeInvalid";
}

std::vector<FieldError> validate(const Schema& schema, const json::value& object, const json::value* old_object,
                                 const ValidateOptions& options) {
  const Node& root = schema.root;
  std::vector<FieldError> out;
  validate_openapi(root, object, out);
  if (root.embedded_resource || root.subtree_has_embedded) validate_embedded_resources(root, object, out);
  if (root.list_type != cel::Shape::ListType::Atomic || root.subtree_has_list_invariants) {
    validate_list_types(root, object, out);
  }
  if (root.rules.empty() && !root.subtree_has_rules) return out;
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
  validate_cel(root, object, old_object, options.cel_cost_budget, out);
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
