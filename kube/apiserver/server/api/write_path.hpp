#pragma once

// The steps creates and updates share (kube-apiserver's rest.BeforeCreate /
// rest.BeforeUpdate and the generic store): server-set metadata, the strategy's
// preparation and validation, namespace lifecycle admission, field-manager tracking, and
// storing with the commit pipeline.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/resource_request.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

/// The WriteContext of a write request: fieldValidation and dryRun checked (400/422),
/// status subresource noted, warnings collected into `warnings`.
ApiResult<WriteContext> make_write_context(const ResourceRequest& r, std::vector<std::string>* warnings);

/// NamespaceLifecycle admission for a write into `ns`: 404 when it does not exist, 403
/// when it is terminating (creates only).
ApiStatus admit_namespace(ServerContext& ctx, const ResourceType& type, std::string_view ns, std::string_view name,
                          bool create);

/// Turns a decoded body into the object a create stores: namespace and name checks,
/// generateName, uid, creationTimestamp, generation, the strategy's defaults,
/// managedFields, validation (422). `ns` is the request's namespace. `validation`
/// receives what validation established (for storing with the object).
ApiResult<json::value> prepare_create(ServerContext& ctx, const ResourceType& view, json::value obj,
                                      const WriteContext& w, std::string_view ns, std::string_view manager,
                                      bool managed_fields_done = false,
                                      schema::ValidationStamp* validation = nullptr);

/// Turns the new content of an existing object into what an update stores:
/// resourceVersion precondition (409), carried-over metadata, the spec/status split,
/// generation, managedFields, validation (422; incremental when `old` carries a
/// validation stamp). `validation` receives the new stamp (for storing with the object).
/// `unchanged` receives same_content(result, old.doc) (a no-op write), which
/// store_updated can then take instead of comparing again. `managed_fields_kept`
/// receives whether the result's managedFields are exactly old's (track_write): its
/// metadata.managedFields is then only a stand-in for them, for store_updated to share
/// (without `managed_fields_kept`, old's are put back in the result).
ApiResult<json::value> prepare_update(ServerContext& ctx, const ResourceType& view, json::value obj,
                                      const StoredObject& old, const WriteContext& w, std::string_view manager,
                                      bool managed_fields_done = false,
                                      schema::ValidationStamp* validation = nullptr, bool* unchanged = nullptr,
                                      bool* managed_fields_kept = nullptr);

/// True when two versions differ only in resourceVersion and managedFields (a no-op
/// write, which kube-apiserver does not store). `changeable`: the only top-level members
/// that may differ, the caller knowing the others equal (changeable_members); empty: any.
bool same_content(const json::object& a, const json::object& b, std::span<const std::string_view> changeable = {});

/// Stores a prepared create and answers 201 (dry run: answers without storing; 409 when
/// the name is taken).
void store_created(const RequestPtr& r, json::value obj, const std::vector<std::string>& warnings,
                   schema::ValidationStamp validation = {});

/// Stores a prepared update of `old` and answers `status`: no-op writes answer the stored
/// object, an object being deleted whose last finalizer went is removed. `unchanged`:
/// same_content(obj, old->doc) when already known (prepare_update's answer).
/// `managed_fields_kept`: prepare_update's answer of that name (obj has a stand-in for
/// old's managedFields).
void store_updated(const RequestPtr& r, json::value obj, const ObjectPtr& old, int status,
                   const std::vector<std::string>& warnings, schema::ValidationStamp validation = {},
                   std::optional<bool> unchanged = std::nullopt, bool managed_fields_kept = false);

/// A create through admission: mutating webhooks, prepare_create, validating webhooks,
/// store_created (each step answering its errors). `managed_fields_done` as for
/// prepare_create.
void admit_and_create(const RequestPtr& r, json::value obj, const WriteContext& w,
                      const std::shared_ptr<std::vector<std::string>>& warnings, bool managed_fields_done);
/// An update of `old` through admission: mutating webhooks, prepare_update, validating
/// webhooks, store_updated. `w` may carry status_alone.
void admit_and_update(const RequestPtr& r, json::value obj, const ObjectPtr& old, WriteContext w,
                      const std::shared_ptr<std::vector<std::string>>& warnings, bool managed_fields_done);

}  // namespace kueuepp::kube::server
