#pragma once

// Strategy: what one kind adds to the generic request handling (kube-apiserver's
// RESTCreateStrategy / RESTUpdateStrategy / TableConvertor in one place): decoding and
// version conversion, defaulting, the spec/status split, validation, generation rules,
// field selectors and table columns. The generic handlers (kube/apiserver/server/api/) do
// everything every kind shares; one Strategy subclass per kind overrides the rest.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/schema/validation_stamp.hpp"
#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/field_error.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"
#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

/// The fieldValidation query parameter.
enum class FieldValidation { Ignore, Warn, Strict };

/// What a write is about.
struct WriteContext {
  const ResourceType* view = nullptr;  ///< the endpoint the request came through
  FieldValidation field_validation = FieldValidation::Warn;
  bool status = false;                 ///< a write to the status subresource
  /// The object is what a JSON, merge or strategic merge patch made of the stored one:
  /// kube-apiserver reports such a result that does not decode as an invalid patch
  /// (422 on the field "patch"), where the same body sent whole is a bad request.
  bool patch_result = false;
  /// A status write that left every top-level member but status an exact copy of the
  /// stored object's (metadata: but for resourceVersion and managedFields), as a merge
  /// patch naming status alone does: what prepare_for_update would revert and the
  /// comparisons with the stored object would find equal need no looking at.
  bool status_alone = false;
  std::vector<std::string>* warnings = nullptr;
  /// The ObjectMeta errors found before the strategy validates (schemas skip CEL rules
  /// when the object is already invalid).
  const FieldErrors* prior_errors = nullptr;
  /// The object being validated and the stored one, as the values they are part of
  /// (set by the write path; spares schema validation a copy of each).
  const json::value* object_value = nullptr;
  const json::value* old_value = nullptr;
  /// Incremental validation (custom resources): the stored version's validation stamp,
  /// and where validation records the new version's (set by the write path).
  schema::ValidationStamp old_validation;
  schema::ValidationStamp* validation = nullptr;
  void warn(std::string text) const;
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  // -- decoding and conversion --------------------------------------------------------

  /// Turns a request body (an object whose kind/apiVersion the handler has checked) in
  /// the view's version into the storage form. Errors are what kube-apiserver's decoder
  /// reports (400): malformed MicroTimes, unknown fields under fieldValidation=Strict.
  virtual ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const;
  /// The stored object as `view` presents it. Default: apiVersion relabelled.
  virtual json::value encode(const json::value& stored, const ResourceType& view) const;
  /// False when encode() would return the stored document unchanged (so its cached
  /// serialization can be sent as is).
  virtual bool converts(const ResourceType& view) const;

  // -- writes -----------------------------------------------------------------------

  /// Problems with a metadata.name (default: RFC 1123 subdomain).
  virtual Problems name_problems(std::string_view name) const;
  /// Server-set fields and defaults on create (default: drops status when the kind has a
  /// status subresource).
  virtual void prepare_for_create(json::object& obj, const WriteContext& ctx) const;
  /// The spec/status split on update: a main-resource write keeps the stored status, a
  /// status write keeps everything but status (and metadata) from the stored object.
  virtual void prepare_for_update(json::object& obj, const json::object& old, const WriteContext& ctx) const;
  virtual FieldErrors validate(const json::object& obj, const WriteContext& ctx) const;
  virtual FieldErrors validate_update(const json::object& obj, const json::object& old,
                                      const WriteContext& ctx) const;

  // -- policies ---------------------------------------------------------------------

  /// Whether objects carry metadata.generation (1 on create, +1 on spec changes).
  virtual bool tracks_generation() const { return false; }
  /// Whether the update from `old` to `obj` (prepared by prepare_for_update with the
  /// same context) changes what generation tracks (default: anything outside metadata
  /// and status).
  virtual bool generation_changes(const json::object& obj, const json::object& old, const WriteContext& ctx) const;
  virtual bool allow_create_on_update() const { return false; }
  virtual bool allow_unconditional_update() const { return true; }
  /// Whether a DELETE without propagationPolicy orphans dependents (batch/v1 Job).
  virtual bool orphan_dependents_by_default() const { return false; }
  /// Whether something still holds the object once deletion was asked for (default:
  /// metadata.finalizers; namespaces also wait for spec.finalizers).
  virtual bool holds_deletion(const json::object& obj) const;
  /// Changes a graceful delete makes besides deletionTimestamp (namespaces: Terminating).
  virtual void prepare_for_delete(json::object&) const {}
  /// Warnings a DELETE answers with (`policy` is the requested propagationPolicy).
  virtual std::vector<std::string> delete_warnings(std::string_view policy) const;
  /// Strategic merge patch list strategies; empty when the kind does not support
  /// strategic merge patch (415).
  virtual patch::ListStrategyResolver strategic_lists() const { return {}; }
  /// Server-side apply list strategies / atomic objects.
  virtual patch::ListStrategyResolver apply_lists() const;
  virtual patch::AtomicObjectResolver apply_atomic_objects() const;

  // -- reads ------------------------------------------------------------------------

  /// Field selector fields besides metadata.name and metadata.namespace.
  virtual std::vector<std::string> selectable_fields() const { return {}; }
  /// The value of a selectable field (strings as is, other scalars as their JSON text).
  virtual std::optional<std::string> field_value(const json::object& obj, std::string_view field) const;

  /// kubectl get columns after Name (kube-apiserver's table convertor); cells() returns
  /// one value per column for an object (stored form).
  virtual std::vector<PrinterColumn> columns(const ResourceType& view) const;
  virtual json::array cells(const json::object& obj, const ResourceType& view) const;
};

/// A selectable field's value found by a dotted path ("involvedObject.kind").
std::optional<std::string> value_at_path(const json::object& obj, std::string_view dotted);

/// The top-level members of a write that may differ from the stored object's, as far as
/// the write path knows: status alone for a status_alone write; any (empty) otherwise.
std::span<const std::string_view> changeable_members(const WriteContext& ctx);

}  // namespace kueuepp::kube::server
