// POST (create) and PUT (update, and status updates through the status subresource).

#include <fmt/format.h>

#include "kube/apiserver/server/api/body_decoder.hpp"
#include "kube/apiserver/server/api/handlers.hpp"
#include "kube/apiserver/server/api/write_path.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

void handle_create(const RequestPtr& r) {
  auto warnings = std::make_shared<std::vector<std::string>>();
  auto w = make_write_context(*r, warnings.get());
  if (!w) return respond_error(*r->responder, w.error(), r->rep);
  auto obj = decode_request_object(*r, *w);
  if (!obj) return respond_error(*r->responder, obj.error(), r->rep);
  schema::ValidationStamp validation;
  auto prepared = prepare_create(r->ctx, r->view(), std::move(*obj), *w, r->info.ns, r->field_manager(), false,
                                 &validation);
  if (!prepared) return respond_error(*r->responder, prepared.error(), r->rep);
  store_created(r, std::move(*prepared), *warnings, validation);
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
  schema::ValidationStamp validation;
  if (!old) {
    if (!r->view().strategy->allow_create_on_update() || w->status) {
      return respond_error(*r->responder, not_found(r->subject()), r->rep);
    }
    auto prepared = prepare_create(r->ctx, r->view(), std::move(*obj), *w, r->info.ns, r->field_manager(), false,
                                   &validation);
    if (!prepared) return respond_error(*r->responder, prepared.error(), r->rep);
    store_created(r, std::move(*prepared), *warnings, validation);
    return;
  }
  bool unchanged = false;
  bool managed_fields_kept = false;
  auto prepared = prepare_update(r->ctx, r->view(), std::move(*obj), *old, *w, r->field_manager(), false, &validation,
                                 &unchanged, &managed_fields_kept);
  if (!prepared) return respond_error(*r->responder, prepared.error(), r->rep);
  store_updated(r, std::move(*prepared), old, 200, *warnings, validation, unchanged, managed_fields_kept);
}

}  // namespace kueuepp::kube::server
