#pragma once

// The JSON types of the built-in kinds' fields, checked when a body is decoded.
// kube-apiserver decodes built-in kinds into Go structs, so a known field of the wrong
// JSON type is a decoding error (400, "json: cannot unmarshal string into Go struct field
// ... of type int32"). Without the check such an object would be stored, and every
// client that lists the kind would then fail to decode it (or, worse, read "yes" as a
// false spec.suspend).

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

enum class FieldType {
  String,
  Bool,
  Integer,
  Object,
  StringList,   ///< []string
  ObjectList,   ///< []struct
  StringMap,    ///< map[string]string
  Base64Map,    ///< map[string][]byte: base64 strings
  QuantityMap,  ///< map[ResourceName]resource.Quantity: numbers or quantity strings ("500m")
};

struct TypedField {
  /// Dotted path; "[]" after a name visits every element of that list
  /// ("containers[].env[].value").
  std::string_view path;
  FieldType type;
};

/// The first of `fields` (paths relative to the object at dotted path `base` of `obj`,
/// "" for the root) whose value has the wrong JSON type, worded as kube-apiserver's
/// decoder words it ("json: cannot unmarshal string into Go struct field
/// spec.parallelism of type int32"); nullopt when all are fine. Absent and null values
/// are fine (Go keeps the zero value), and so is a missing or non-object base.
std::optional<std::string> wrong_field_type(const json::object& obj, std::string_view base,
                                            std::span<const TypedField> fields);

/// The fields of a core/v1 PodSpec that kueuepp and its clients read.
std::span<const TypedField> pod_spec_fields();

}  // namespace kueuepp::kube::server
