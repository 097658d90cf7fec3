#pragma once

// ObjectMeta: access helpers, the validation every kind shares
// (k8s.io/apimachinery/pkg/api/validation ValidateObjectMeta / ValidateObjectMetaUpdate)
// and the canonical key order the server writes metadata in.

#include <string>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/field_error.hpp"
#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

class Strategy;

/// obj["metadata"] as an object (made an empty object when missing or not an object).
json::object& metadata_of(json::object& obj);
const json::object* metadata_of(const json::object& obj);
/// A string member of metadata ("" when absent).
std::string_view meta_string(const json::object& obj, std::string_view key);
/// The labels (null when absent).
const json::value* labels_of(const json::object& obj);

/// The age column value ("5m") from metadata.creationTimestamp.
std::string age_of(const json::object& obj);

/// Puts metadata keys in the order kube-apiserver serializes ObjectMeta.
void order_metadata(json::object& obj);

/// Checks that metadata fields have the right JSON types (decoding errors, 400).
/// Returns a message naming the field when one does not.
std::string metadata_type_problem(const json::object& obj);

/// ValidateObjectMeta for a create (name or generateName, labels, annotations,
/// finalizers, ownerReferences). `strategy` supplies the name rule.
FieldErrors validate_object_meta(const json::object& obj, const Strategy& strategy, bool namespaced);
/// ValidateObjectMetaUpdate: metadata rules plus what an update may not change.
FieldErrors validate_object_meta_update(const json::object& obj, const json::object& old,
                                        const Strategy& strategy, bool namespaced);

}  // namespace kueuepp::kube::server
