// PATCH: JSON merge patch, JSON patch, strategic merge patch (built-in kinds) and
// server-side apply, applied to the stored object as the client's API version presents
// it, then stored like an update (or, for apply, a create).

#include <fmt/format.h>

#include "kube/json/yaml.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/apiserver/server/api/body_decoder.hpp"
#include "kube/apiserver/server/api/decode_error_text.hpp"
#include "kube/apiserver/server/api/handlers.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"
#include "kube/apiserver/server/api/webhook_conversion.hpp"
#include "kube/apiserver/server/api/write_path.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/util/time.hpp"

namespace kueuepp::kube::server {

namespace {

enum class PatchType { Merge, Json, Strategic, Apply };

// A merge patch that does not name metadata.managedFields does not send them: they are
// left out of the patched object, and the field manager records the write on the stored
// ones (as it does for any write without them), instead of copying them here and finding
// them equal to the stored ones there.
constexpr std::string_view kManagedFieldsPath[] = {"metadata", "managedFields"};
constexpr std::span<const std::string_view> kUnsentManagedFields(kManagedFieldsPath);

ApiResult<PatchType> patch_type_of(const ResourceRequest& r) {
  MediaType m = parse_media_type(r.http.header("content-type"));
  if (m.type == "application") {
    if (m.subtype == "merge-patch+json") return PatchType::Merge;
    if (m.subtype == "json-patch+json") return PatchType::Json;
    if (m.subtype == "apply-patch+yaml") return PatchType::Apply;
    if (m.subtype == "strategic-merge-patch+json") {
      if (r.view().strategy->strategic_lists()) return PatchType::Strategic;
      return api_fail(unsupported_media_type(
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"));
    }
  }
  return api_fail(unsupported_media_type("415: Unsupported Media Type"));
}

ApiError from_patch_error(const patch::PatchError& e, const ResourceRequest& r, PatchType type) {
  switch (e.kind) {
    case patch::PatchError::Kind::BadRequest:
      if (type == PatchType::Json) return bad_request(fmt::format("error decoding patch: {}", e.message));
      return bad_request(e.message);
    case patch::PatchError::Kind::Invalid: {
      ApiError err;
      err.code = 422;
      err.reason = "Invalid";
      err.message = type == PatchType::Json ? "the server rejected our request due to an error in our request"
                                             : e.message;
      err.details = json::object{};
      return err;
    }
    case patch::PatchError::Kind::Conflict: {
      ApiError err = conflict(r.subject(), "");
      err.message = fmt::format("Apply failed with {} conflict{}: ", e.conflicts.size(), e.conflicts.size() == 1 ? "" : "s");
      json::array causes;
      for (std::size_t i = 0; i < e.conflicts.size(); ++i) {
        if (i > 0) err.message += "\n";
        err.message += e.conflicts[i];
      }
      for (const auto& c : e.conflict_causes) {
        causes.push_back(json::object{{"reason", "FieldManagerConflict"}, {"message", c.message}, {"field", c.field}});
      }
      (*err.details)["causes"] = std::move(causes);
      return err;
    }
  }
  return bad_request(e.message);
}

/// The patch document: JSON for the JSON-based types, YAML (or JSON) for apply.
ApiResult<json::value> parse_patch(const ResourceRequest& r, PatchType type) {
  Expected<json::value> doc = type == PatchType::Apply ? json::parse_yaml(r.http.body) : json::parse(r.http.body);
  if (!doc) {
    if (type == PatchType::Apply) {
      return api_fail(bad_request(fmt::format("error decoding patch: {}", doc.error().message)));
    }
    // kube-apiserver reads JSON and merge patches with encoding/json and says so; a
    // strategic merge patch's error comes without the prefix.
    const std::string why = go_syntax_error(r.http.body, doc.error().message);
    if (type == PatchType::Strategic) return api_fail(bad_request(why));
    return api_fail(bad_request(fmt::format("error decoding patch: {}", why)));
  }
  switch (type) {
    case PatchType::Json:
      if (!doc->is_array()) {
        return api_fail(bad_request(fmt::format(
            "error decoding patch: json: cannot unmarshal {} into Go value of type []handlers.jsonPatchOp",
            doc->is_object() ? "object" : "value")));
      }
      if (doc->as_array().size() > patch::kMaxJsonPatchOperations) {
        return api_fail(request_too_large(fmt::format("The allowed maximum operations in a JSON patch is {}, got {}",
                                                      patch::kMaxJsonPatchOperations, doc->as_array().size())));
      }
      break;
    case PatchType::Merge:
    case PatchType::Strategic:
      if (!doc->is_object()) return api_fail(bad_request("Invalid JSON Patch"));
      break;
    case PatchType::Apply:
      if (!doc->is_object()) return api_fail(bad_request("error decoding YAML: the applied configuration is not an object"));
      break;
  }
  return std::move(*doc);
}

/// Whether a merge patch naming status alone (`status_only`) left every member of
/// `decoded` but status a copy of `old`'s (WriteContext::status_alone): the merge copies
/// what the patch does not name, and a custom resource's decoding of a status write
/// leaves all but status as it is, apiVersion aside (the storage version: it must be the
/// stored object's).
bool leaves_all_but_status(const ResourceRequest& r, const WriteContext& w, bool status_only,
                           const json::value& decoded, const StoredObject& old) {
  const ResourceType& view = r.view();
  return status_only && w.status && view.custom && view.status_subresource && !view.strategy->converts(view) &&
         json::get_string(decoded, "apiVersion") == json::get_string(old.doc, "apiVersion");
}

/// Server-side apply: the configuration merged into the live object (null: create).
ApiResult<json::value> apply(const ResourceRequest& r, const json::value& config, const json::value* live, bool status) {
  json::value applied = config;
  json::object& a = applied.as_object();
  if (auto st = check_type_meta(a, r.view()); !st) return unexpected(st.error());
  std::string_view name = meta_string(a, "name");
  if (name != r.info.name) {
    return api_fail(bad_request(fmt::format("the name of the object ({}) does not match the name on the URL ({})",
                                            name, r.info.name)));
  }
  if (r.view().status_subresource) {
    // kube-apiserver's reset fields: status belongs to /status, the rest to the main resource.
    if (status) {
      json::object kept;
      for (const char* k : {"apiVersion", "kind", "metadata", "status"}) {
        if (auto* v = a.if_contains(k)) kept[k] = *v;
      }
      a = std::move(kept);
    } else {
      a.erase("status");
    }
  }
  std::string manager = std::string(r.query.get_or("fieldManager", ""));
  patch::ApplyRequest req;
  req.live = live;
  req.applied = &applied;
  req.manager = manager;
  req.force = r.query.flag("force");
  std::string api_version = r.view().api_version();
  req.api_version = api_version;
  std::string now = now_rfc3339();
  req.timestamp = now;
  req.lists = r.view().strategy->apply_lists();
  req.atomic_objects = r.view().strategy->apply_atomic_objects();
  req.subresource = status ? "status" : "";
  auto result = patch::server_side_apply(req);
  if (!result) return api_fail(from_patch_error(result.error(), r, PatchType::Apply));
  return std::move(*result);
}

/// The patch applied to `old` (as the request's version presents it; null: an apply that
/// creates) and the result written.
void patch_against(const RequestPtr& r, PatchType type, WriteContext w,
                   const std::shared_ptr<std::vector<std::string>>& warnings, json::value doc, const ObjectPtr& old) {
  // The stored document is patched in place of a copy when the view needs no conversion
  // and the patch cannot see the managedFields the store holds apart: a merge patch
  // leaves them out unless it names them, and then a value it names replaces a list
  // whole (RFC 7386), so the stored list never reaches the result.
  json::value whole;
  const bool stored_will_do = old && presented_as_stored(*old, r->view()) && type == PatchType::Merge;
  if (old && !stored_will_do) whole = object_value(*old, r->view());
  const json::value& current = stored_will_do ? old->doc : whole;
  const bool status_only = type == PatchType::Merge && doc.as_object().size() == 1 &&
                           doc.as_object().contains("status");
  Expected<json::value, patch::PatchError> patched = json::value();
  switch (type) {
    // The parsed patch serves this merge only: its values move into the result.
    case PatchType::Merge: patched = patch::merge_patch(current, std::move(doc), kUnsentManagedFields); break;
    case PatchType::Json: patched = patch::json_patch(current, doc); break;
    case PatchType::Strategic:
      patched = patch::strategic_merge_patch(current, doc, r->view().strategy->strategic_lists());
      break;
    case PatchType::Apply: {
      auto applied = apply(*r, doc, old ? &current : nullptr, w.status);
      if (!applied) return respond_error(*r->responder, applied.error(), r->rep);
      patched = std::move(*applied);
      break;
    }
  }
  if (!patched) return respond_error(*r->responder, from_patch_error(patched.error(), *r, type), r->rep);
  if (!patched->is_object()) {
    return respond_error(*r->responder, bad_request("the patched object is not a JSON object"), r->rep);
  }
  json::object& p = patched->as_object();
  if (auto st = check_type_meta(p, r->view()); !st) return respond_error(*r->responder, st.error(), r->rep);
  if (std::string problem = metadata_type_problem(p); !problem.empty()) {
    return respond_error(*r->responder, bad_request(problem), r->rep);
  }
  std::string_view name = meta_string(p, "name");
  if (name != r->info.name) {
    return respond_error(*r->responder,
                         bad_request(fmt::format("the name of the object ({}) does not match the name on the URL ({})",
                                                 name, r->info.name)),
                         r->rep);
  }
  w.patch_result = type != PatchType::Apply;
  auto decoded = r->view().strategy->decode(std::move(*patched), w);
  if (!decoded) return respond_error(*r->responder, decoded.error(), r->rep);
  bool managed_done = type == PatchType::Apply;
  if (!old) return admit_and_create(r, std::move(*decoded), w, warnings, managed_done);
  w.status_alone = leaves_all_but_status(*r, w, status_only, *decoded, *old);
  admit_and_update(r, std::move(*decoded), old, w, warnings, managed_done);
}

}  // namespace

void handle_patch(const RequestPtr& r) {
  auto type = patch_type_of(*r);
  if (!type) return respond_error(*r->responder, type.error(), r->rep);
  auto warnings = std::make_shared<std::vector<std::string>>();
  auto w = make_write_context(*r, warnings.get());
  if (!w) return respond_error(*r->responder, w.error(), r->rep);
  if (*type == PatchType::Apply && r->query.get_or("fieldManager", "").empty()) {
    FieldErrors errs{required_error("fieldManager", "is required for apply patch")};
    return respond_error(*r->responder, invalid("meta.k8s.io", "PatchOptions", "", errs), r->rep);
  }
  auto doc = parse_patch(*r, *type);
  if (!doc) return respond_error(*r->responder, doc.error(), r->rep);
  ObjectPtr old = r->ctx.store.get(r->bucket, r->key());
  if (!old && *type != PatchType::Apply) return respond_error(*r->responder, not_found(r->subject()), r->rep);
  if (!old && w->status) return respond_error(*r->responder, not_found(r->subject()), r->rep);
  old_for_view(old, r->view(), [r, type = *type, w = *w, warnings, doc = std::move(*doc)](ApiResult<ObjectPtr> seen) mutable {
    if (!seen) return respond_error(*r->responder, seen.error(), r->rep);
    patch_against(r, type, w, warnings, std::move(doc), *seen);
  });
}

}  // namespace kueuepp::kube::server
