// POST (create) and PUT (update, and status updates through the status subresource).

#include <fmt/format.h>

#include "kube/apiserver/server/api/admission_steps.hpp"
#include "kube/apiserver/server/api/body_decoder.hpp"
#include "kube/apiserver/server/api/handlers.hpp"
#include "kube/apiserver/server/api/webhook_conversion.hpp"
#include "kube/apiserver/server/api/write_path.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

void admit_and_create(const RequestPtr& r, json::value obj, const WriteContext& w,
                      const std::shared_ptr<std::vector<std::string>>& warnings, bool managed_fields_done) {
  if (r->ctx.admission != nullptr && r->ctx.admission->active()) {
    // As kube-apiserver: the namespace is the request's and must exist before any webhook
    // sees the object.
    if (r->view().namespaced && obj.is_object()) {
      json::object& meta = metadata_of(obj.as_object());
      if (meta_string(obj.as_object(), "namespace").empty()) meta["namespace"] = r->info.ns;
    }
    const std::string_view name = obj.is_object() ? meta_string(obj.as_object(), "name") : std::string_view();
    if (auto st = admit_namespace(r->ctx, r->view(), r->info.ns, name, true); !st) {
      return respond_error(*r->responder, st.error(), r->rep);
    }
  }
  admit(r, AdmissionPhase::Mutating, AdmissionOperation::Create, std::move(obj), nullptr, warnings,
        [r, w, warnings, managed_fields_done](json::value mutated, bool) {
          auto validation = std::make_shared<schema::ValidationStamp>();
          auto prepared = prepare_create(r->ctx, r->view(), std::move(mutated), w, r->info.ns, r->field_manager(),
                                         managed_fields_done, validation.get());
          if (!prepared) return respond_error(*r->responder, prepared.error(), r->rep);
          admit(r, AdmissionPhase::Validating, AdmissionOperation::Create, std::move(*prepared), nullptr, warnings,
                [r, warnings, validation](json::value admitted, bool) {
                  store_created(r, std::move(admitted), *warnings, *validation);
                });
        });
}

void admit_and_update(const RequestPtr& r, json::value obj, const ObjectPtr& old, WriteContext w,
                      const std::shared_ptr<std::vector<std::string>>& warnings, bool managed_fields_done) {
  admit(r, AdmissionPhase::Mutating, AdmissionOperation::Update, std::move(obj), old, warnings,
        [r, w, old, warnings, managed_fields_done](json::value mutated, bool changed) mutable {
          // A webhook's change may reach members a status_alone write leaves unexamined.
          if (changed) w.status_alone = false;
          auto validation = std::make_shared<schema::ValidationStamp>();
          bool unchanged = false;
          bool managed_fields_kept = false;
          auto prepared = prepare_update(r->ctx, r->view(), std::move(mutated), *old, w, r->field_manager(),
                                         managed_fields_done, validation.get(), &unchanged, &managed_fields_kept);
          if (!prepared) return respond_error(*r->responder, prepared.error(), r->rep);
          admit(r, AdmissionPhase::Validating, AdmissionOperation::Update, std::move(*prepared), old, warnings,
                [r, old, warnings, validation, unchanged, managed_fields_kept](json::value admitted, bool) {
                  store_updated(r, std::move(admitted), old, 200, *warnings, *validation, unchanged,
                                managed_fields_kept);
                });
        });
}

void handle_create(const RequestPtr& r) {
  auto warnings = std::make_shared<std::vector<std::string>>();
  auto w = make_write_context(*r, warnings.get());
  if (!w) return respond_error(*r->responder, w.error(), r->rep);
  auto obj = decode_request_object(*r, *w);
  if (!obj) return respond_error(*r->responder, obj.error(), r->rep);
  admit_and_create(r, std::move(*obj), *w, warnings, false);
}

void handle_update(const RequestPtr& r) {
  auto warnings = std::make_shared<std::vector<std::string>>();
  auto w = make_write_context(*r, warnings.get());
  if (!w) return respond_error(*r->responder, w.error(), r->rep);
  auto obj = decode_request_object(*r, *w);
  if (!obj) return respond_error(*r->responder, obj.error(), r->rep);
  json::object& o = obj->as_object();
  std::string_view body_name = meta_string(o, "name");
  if (body_name != r->info.name) {
    return respond_error(*r->responder,
                         bad_request(fmt::format("the name of the object ({}) does not match the name on the URL ({})",
                                                 body_name, r->info.name)),
                         r->rep);
  }
  std::string_view body_ns = meta_string(o, "namespace");
  if (r->view().namespaced && !body_ns.empty() && body_ns != r->info.ns) {
    return respond_error(*r->responder,
                         bad_request("the namespace of the provided object does not match the namespace sent on the request"),
                         r->rep);
  }
  ObjectPtr old = r->ctx.store.get(r->bucket, r->key());
  if (!old) {
    if (!r->view().strategy->allow_create_on_update() || w->status) {
      return respond_error(*r->responder, not_found(r->subject()), r->rep);
    }
    return admit_and_create(r, std::move(*obj), *w, warnings, false);
  }
  old_for_view(old, r->view(), [r, obj = std::move(*obj), w = *w, warnings](ApiResult<ObjectPtr> seen) mutable {
    if (!seen) return respond_error(*r->responder, seen.error(), r->rep);
    admit_and_update(r, std::move(obj), *seen, w, warnings, false);
  });
}

}  // namespace kueuepp::kube::server
