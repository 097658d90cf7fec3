#include "kube/apiserver/server/api/admission_steps.hpp"

#include "kube/apiserver/server/api/handlers.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

/// kube-apiserver runs admission inside its storage's update loop, which tries again on
/// the new version when the object changed meanwhile: a PUT without a resourceVersion
/// and a PATCH apply to the new version, a PUT with one then meets 409.
constexpr int kMaxAdmissionRetries = 5;

void handle_again(const RequestPtr& r, const ObjectPtr& old) {
  if (++r->admission_retries <= kMaxAdmissionRetries) {
    if (r->http.method == "PUT") return handle_update(r);
    if (r->http.method == "PATCH") return handle_patch(r);
    if (r->http.method == "DELETE") return handle_delete(r);
  }
  respond_error(*r->responder,
                conflict(r->subject(old->name),
                         "the object has been modified; please apply your changes to the latest version and try again"),
                r->rep);
}

/// CreateOptions, UpdateOptions or DeleteOptions as kube-apiserver hands them to webhooks.
json::value operation_options(const ResourceRequest& r, AdmissionOperation op) {
  json::object o;
  switch (op) {
    case AdmissionOperation::Create: o["kind"] = "CreateOptions"; break;
    case AdmissionOperation::Update: o["kind"] = "UpdateOptions"; break;
    case AdmissionOperation::Delete: o["kind"] = "DeleteOptions"; break;
    case AdmissionOperation::Connect: return nullptr;
  }
  o["apiVersion"] = "meta.k8s.io/v1";
  if (r.dry_run()) o["dryRun"] = json::array{"All"};
  if (op == AdmissionOperation::Delete) {
    std::string_view policy = r.query.get_or("propagationPolicy", "");
    if (!policy.empty()) o["propagationPolicy"] = policy;
  } else {
    std::string manager = r.field_manager();
    if (!manager.empty()) o["fieldManager"] = manager;
  }
  return o;
}

}  // namespace

AdmissionRequestPtr make_admission_request(const ResourceRequest& r, AdmissionOperation operation, json::value object,
                                           const ObjectPtr& old,
                                           const std::shared_ptr<std::vector<std::string>>& warnings,
                                           std::string_view name) {
  auto request = std::make_shared<AdmissionRequest>();
  request->operation = operation;
  request->view = r.type;
  request->subresource = r.info.subresource;
  request->name = name.empty() ? r.info.name : std::string(name);
  if (request->name.empty() && object.is_object()) request->name = std::string(meta_string(object.as_object(), "name"));
  request->ns = r.view().namespaced ? r.info.ns : "";
  if (request->ns.empty() && old && r.view().namespaced) request->ns = old->ns;
  // kube-apiserver reports a Namespace's requests as in that namespace.
  if (r.view().group.empty() && r.view().plural == "namespaces") request->ns = request->name;
  request->object = std::move(object);
  request->old_object = old;
  request->dry_run = r.dry_run();
  request->options = operation_options(r, operation);
  request->warnings = warnings;
  request->user = r.user;
  return request;
}

void admit(const RequestPtr& r, AdmissionPhase phase, AdmissionOperation operation, json::value object,
           const ObjectPtr& old, const std::shared_ptr<std::vector<std::string>>& warnings,
           std::function<void(json::value, bool)> next) {
  Admission* admission = r->ctx.admission;
  if (admission == nullptr || !admission->active()) return next(std::move(object), false);
  auto request = make_admission_request(*r, operation, std::move(object), old, warnings);
  auto returned = std::make_shared<bool>(false);
  auto done = [r, request, old, returned, next = std::move(next)](ApiStatus status) {
    if (!status) return respond_error(*r->responder, status.error(), r->rep);
    // Answered later than the call: the object may have been written meanwhile. Compared
    // by resourceVersion: `old` may be a copy converted for the request's version.
    if (*returned && old) {
      ObjectPtr current = r->ctx.store.get(r->bucket, old->key);
      if (!current || current->rv != old->rv) return handle_again(r, old);
    }
    next(std::move(request->object), request->mutated);
  };
  if (phase == AdmissionPhase::Mutating) {
    admission->mutate(request, std::move(done));
  } else {
    admission->validate(request, std::move(done));
  }
  *returned = true;
}

}  // namespace kueuepp::kube::server
