#include "kube/apiserver/server/api/write_path.hpp"

#include <algorithm>
#include <cstddef>
#include <span>

#include <fmt/format.h>

#include "kube/apiserver/server/api/body_decoder.hpp"
#include "kube/apiserver/server/api/field_manager.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"
#include "kube/apiserver/server/api/webhook_conversion.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/util/ids.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::size_t kMaxGenerateNameBase = 63 - 5;

ApiError invalid_object(const ResourceType& view, std::string_view name, const FieldErrors& errs) {
  return invalid(view.group, view.kind, name, errs);
}

/// Puts `old`'s managedFields back in place of the stand-in a write that kept them left
/// (track_write), for an object that goes out whole rather than into the store.
void put_back_managed_fields(json::value& obj, const StoredObject& old) {
  if (old.managed_fields) metadata_of(obj.as_object())["managedFields"] = *old.managed_fields;
}

/// The response body for an object that is not (or no longer) in the store.
json::value as_view(const ResourceType& view, json::value obj) {
  if (!view.strategy->converts(view)) return obj;
  return view.strategy->encode(obj, view);
}

}  // namespace

ApiResult<WriteContext> make_write_context(const ResourceRequest& r, std::vector<std::string>* warnings) {
  // kube-apiserver validates the write's options object as a whole: every bad value is
  // a cause of one Invalid on CreateOptions, UpdateOptions or PatchOptions.
  FieldErrors errs;
  std::string_view dry = r.query.get_or("dryRun", "");
  if (!dry.empty() && dry != "All") {
    // dryRun is a list of strings, which Go's %#v shows as []string{"..."}.
    errs.push_back({"FieldValueNotSupported", "dryRun",
                    fmt::format("Unsupported value: []string{{\"{}\"}}: supported values: \"All\"", dry)});
  }
  auto fv = field_validation_of(r.query);
  if (!fv) {
    errs.push_back(not_supported_error("fieldValidation", json::value(r.query.get_or("fieldValidation", "")),
                                       {"", "Ignore", "Strict", "Warn"}));
  }
  if (!errs.empty()) {
    const std::string_view method = r.http.method;
    const std::string_view options = method == "PUT" ? "UpdateOptions" : method == "PATCH" ? "PatchOptions" : "CreateOptions";
    return api_fail(invalid("meta.k8s.io", options, "", errs));
  }
  WriteContext w;
  w.view = r.type.get();
  w.field_validation = *fv;
  w.status = r.info.subresource == "status";
  w.warnings = warnings;
  return w;
}

ApiStatus admit_namespace(ServerContext& ctx, const ResourceType& type, std::string_view ns, std::string_view name,
                          bool create) {
  if (!type.namespaced) return {};
  const ResourceType* ns_type = ctx.registry.find("", "v1", "namespaces");
  if (ns_type == nullptr) return {};
  ObjectPtr nso = ctx.store.get(ctx.bucket_of(*ns_type), ns);
  if (!nso) return api_fail(not_found(ErrorSubject{"", "namespaces", ns}));
  if (create && !meta_string(nso->doc.as_object(), "deletionTimestamp").empty()) {
    // kube-apiserver's NamespaceLifecycle admission names the object being created.
    ApiError e = forbidden(ErrorSubject{type.group, type.plural, name},
                           fmt::format("unable to create new content in namespace {} because it is being terminated", ns));
    json::object& details = *e.details;
    details["causes"] = json::array{json::object{{"reason", "NamespaceTerminating"},
                                                 {"message", fmt::format("namespace {} is being terminated", ns)},
                                                 {"field", "metadata.namespace"}}};
    return api_fail(std::move(e));
  }
  return {};
}

ApiResult<json::value> prepare_create(ServerContext& ctx, const ResourceType& view, json::value obj,
                                      const WriteContext& w, std::string_view ns, std::string_view manager,
                                      bool managed_fields_done, schema::ValidationStamp* validation) {
  json::object& o = obj.as_object();
  json::object& meta = metadata_of(o);
  std::string body_ns(meta_string(o, "namespace"));
  if (view.namespaced) {
    if (!body_ns.empty() && body_ns != ns) {
      return api_fail(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
    }
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  if (!meta_string(o, "resourceVersion").empty()) {
    return api_fail(bad_request("resourceVersion should not be set on objects to be created"));
  }
  meta.erase("resourceVersion");
  std::string_view generate = meta_string(o, "generateName");
  if (meta_string(o, "name").empty() && !generate.empty()) {
    std::string base(generate.substr(0, kMaxGenerateNameBase));
    meta["name"] = base + name_suffix();
  }
  meta["uid"] = new_uid();
  meta["creationTimestamp"] = now_rfc3339();
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  meta.erase("selfLink");
  if (view.strategy->tracks_generation()) {
    meta["generation"] = 1;
  } else {
    meta.erase("generation");
  }
  view.strategy->prepare_for_create(o, w);
  if (auto st = admit_namespace(ctx, view, ns, meta_string(o, "name"), true); !st) return unexpected(st.error());
  FieldErrors errs = validate_object_meta(o, *view.strategy, view.namespaced);
  WriteContext wv = w;
  wv.prior_errors = &errs;
  wv.object_value = &obj;
  wv.validation = validation;
  for (auto& e : view.strategy->validate(o, wv)) errs.push_back(std::move(e));
  if (!errs.empty()) return api_fail(invalid_object(view, meta_string(o, "name"), errs));
  if (!managed_fields_done) track_write(obj, nullptr, view, manager, false);  // never kept: nothing was stored
  order_metadata(obj.as_object());
  return obj;
}

ApiResult<json::value> prepare_update(ServerContext&, const ResourceType& view, json::value obj,
                                      const StoredObject& old, const WriteContext& w, std::string_view manager,
                                      bool managed_fields_done, schema::ValidationStamp* validation,
                                      bool* unchanged, bool* managed_fields_kept) {
  if (managed_fields_kept != nullptr) *managed_fields_kept = false;
  json::object& o = obj.as_object();
  json::object& meta = metadata_of(o);
  const json::object& old_o = old.doc.as_object();
  const json::object& old_meta = *metadata_of(old_o);
  ErrorSubject subject{view.group, view.plural, old.name};
  std::string_view rv = meta_string(o, "resourceVersion");
  if (!rv.empty()) {
    if (rv != std::to_string(old.rv)) {
      return api_fail(conflict(subject, "the object has been modified; please apply your changes to the latest version and try again"));
    }
  } else if (!view.strategy->allow_unconditional_update()) {
    return api_fail(invalid_object(view, old.name,
                                   {{"FieldValueInvalid", "metadata.resourceVersion",
                                     "Invalid value: 0x0: must be specified for an update"}}));
  }
  std::string_view uid = meta_string(o, "uid");
  if (!uid.empty() && uid != old.uid) {
    return api_fail(conflict(subject, fmt::format("Precondition failed: UID in precondition: {}, UID in object meta: {}", uid, old.uid)));
  }
  meta["uid"] = old.uid;
  // stable_erase: erase() would move the last member (managedFields) into the hole, and
  // order_metadata would then have to rebuild metadata on every update.
  meta.stable_erase("resourceVersion");
  for (std::string_view key : {"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"}) {
    if (const json::value* v = old_meta.if_contains(key)) {
      meta[key] = *v;
    } else {
      meta.erase(key);
    }
  }
  if (view.namespaced) meta["namespace"] = old.ns;
  view.strategy->prepare_for_update(o, old_o, w);
  json::object& meta_after = metadata_of(o);
  if (view.strategy->tracks_generation() && view.strategy->generation_changes(o, old_o, w)) {
    const json::value* g = old_meta.if_contains("generation");
    std::int64_t gen = g != nullptr && g->is_int64() ? g->get_int64() : 0;
    meta_after["generation"] = gen + 1;
  }
  // Metadata a status_alone write left as stored passed these very checks when stored
  // (every stored version did), and an unchanged finalizer list adds none.
  FieldErrors errs = w.status_alone ? FieldErrors() : validate_object_meta_update(o, old_o, *view.strategy,
                                                                                   view.namespaced);
  WriteContext wv = w;
  wv.prior_errors = &errs;
  wv.object_value = &obj;
  wv.old_value = &old.doc;
  wv.old_validation = old.validation;
  wv.validation = validation;
  for (auto& e : view.strategy->validate_update(o, old_o, wv)) errs.push_back(std::move(e));
  if (!errs.empty()) return api_fail(invalid_object(view, old.name, errs));
  // A no-op write is not stored (store_updated answers the stored object): no need to
  // record it in managedFields.
  // track_write and order_metadata change only what same_content ignores (managedFields,
  // member order): the answer holds for the object returned.
  if (!managed_fields_done || unchanged != nullptr) {
    bool same = same_content(obj.as_object(), old_o, changeable_members(w));
    if (unchanged != nullptr) *unchanged = same;
    if (!managed_fields_done && !same) {
      const bool kept = track_write(obj, &old, view, manager, w.status);
      if (managed_fields_kept != nullptr) {
        *managed_fields_kept = kept;
      } else if (kept) {
        put_back_managed_fields(obj, old);
      }
    }
  }
  order_metadata(obj.as_object());
  return obj;
}

bool same_content(const json::object& a, const json::object& b, std::span<const std::string_view> changeable) {
  if (a.size() != b.size()) return false;
  auto known_equal = [changeable](std::string_view key) {
    return !changeable.empty() && std::find(changeable.begin(), changeable.end(), key) == changeable.end();
  };
  for (const auto& [key, value] : a) {
    const json::value* other = b.if_contains(key);
    if (other == nullptr) return false;
    if (known_equal(key)) continue;
    if (key != "metadata") {
      if (!json::equal(value, *other)) return false;
      continue;
    }
    const json::object* ma = value.if_object();
    const json::object* mb = other->if_object();
    if (ma == nullptr || mb == nullptr) return json::equal(value, *other);
    auto significant = [](const json::object& m) {
      std::size_t n = 0;
      for (const auto& kv : m) n += kv.key() != "resourceVersion" && kv.key() != "managedFields" ? 1 : 0;
      return n;
    };
    if (significant(*ma) != significant(*mb)) return false;
    for (const auto& [mk, mv] : *ma) {
      if (mk == "resourceVersion" || mk == "managedFields") continue;
      const json::value* ov = mb->if_contains(mk);
      if (ov == nullptr || !json::equal(mv, *ov)) return false;
    }
  }
  return true;
}

void store_created(const RequestPtr& r, json::value obj, const std::vector<std::string>& warnings,
                   schema::ValidationStamp validation) {
  if (!r->dry_run() && needs_storage_conversion(obj, r->view())) {
    // Validated in the request's version; stored in the storage version's (the stamp is
    // of the other schema, so none is kept).
    return convert_for_storage(std::move(obj), r->view(), [r, warnings](ApiResult<json::value> converted) {
      if (!converted) return respond_error(*r->responder, converted.error(), r->rep);
      store_created(r, std::move(*converted), warnings);
    });
  }
  const json::object& o = obj.as_object();
  std::string key = object_key(meta_string(o, "namespace"), meta_string(o, "name"));
  if (r->ctx.store.get(r->bucket, key)) {
    respond_error(*r->responder, already_exists(r->subject(meta_string(o, "name"))), r->rep);
    return;
  }
  if (r->dry_run()) {
    respond_value(*r, 201, as_view(r->view(), std::move(obj)), warnings);
    return;
  }
  const Change& change = r->ctx.store.put(r->bucket, std::move(obj), validation);
  ObjectPtr stored = change.object;
  r->ctx.commit(change, [r, stored, warnings] { respond_object(*r, 201, stored, warnings); });
}

namespace {

/// Whether the stored custom resource is in a version other than its CRD's storage
/// version: then an unchanged update is written anyway, as kube-apiserver writes it
/// (its encoding differs), which is how storage migrations move objects to the storage
/// version. `old` may be a copy converted for the request's version: the store's own
/// object is looked at.
bool stored_in_another_version(const RequestPtr& r, const StoredObject& old) {
  if (!r->view().custom) return false;
  ObjectPtr stored = r->ctx.store.get(r->bucket, old.key);
  return stored && json::get_string(stored->doc, "apiVersion") != r->view().storage_api_version();
}

}  // namespace

void store_updated(const RequestPtr& r, json::value obj, const ObjectPtr& old, int status,
                   const std::vector<std::string>& warnings, schema::ValidationStamp validation,
                   std::optional<bool> unchanged, bool managed_fields_kept) {
  json::object& o = obj.as_object();
  if ((unchanged ? *unchanged : same_content(o, old->doc.as_object())) && !stored_in_another_version(r, *old)) {
    respond_object(*r, status, old, warnings);
    return;
  }
  if (r->dry_run()) {
    if (managed_fields_kept) put_back_managed_fields(obj, *old);
    metadata_of(o)["resourceVersion"] = std::to_string(old->rv);
    respond_value(*r, status, as_view(r->view(), std::move(obj)), warnings);
    return;
  }
  if (!meta_string(o, "deletionTimestamp").empty() && !r->view().strategy->holds_deletion(o)) {
    // The last finalizer is gone: the object goes. Watchers get the last stored state.
    const Change& change = r->ctx.store.remove(r->bucket, old->key);
    if (managed_fields_kept) put_back_managed_fields(obj, *old);
    metadata_of(o)["resourceVersion"] = std::to_string(change.rv);
    json::value body = as_view(r->view(), std::move(obj));
    r->ctx.commit(change, [r, status, body = std::move(body), warnings] { respond_value(*r, status, body, warnings); });
    return;
  }
  if (needs_storage_conversion(obj, r->view())) {
    if (managed_fields_kept) put_back_managed_fields(obj, *old);
    return convert_for_storage(std::move(obj), r->view(), [r, old, status, warnings](ApiResult<json::value> converted) {
      if (!converted) return respond_error(*r->responder, converted.error(), r->rep);
      // The object may have changed while the webhook converted: the write was prepared
      // against `old` and must not overwrite a newer version.
      ObjectPtr current = r->ctx.store.get(r->bucket, old->key);
      if (!current || current->rv != old->rv) {
        return respond_error(*r->responder,
                             conflict(r->subject(old->name), "the object has been modified; please apply your changes "
                                                             "to the latest version and try again"),
                             r->rep);
      }
      const Change& change = r->ctx.store.put(r->bucket, std::move(*converted), {});
      ObjectPtr stored = change.object;
      r->ctx.commit(change, [r, stored, status, warnings] { respond_object(*r, status, stored, warnings); });
    });
  }
  const Change& change =
      r->ctx.store.put(r->bucket, std::move(obj), validation, managed_fields_kept ? old.get() : nullptr);
  ObjectPtr stored = change.object;
  r->ctx.commit(change, [r, stored, status, warnings] { respond_object(*r, status, stored, warnings); });
}

}  // namespace kueuepp::kube::server
