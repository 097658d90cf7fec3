#include "kube/webhook/admission_review.hpp"

#include "core/base64.hpp"

namespace kueuepp::kube::webhook {

std::string_view to_string(Operation op) {
  switch (op) {
    case Operation::Create: return "CREATE";
    case Operation::Update: return "UPDATE";
    case Operation::Delete: return "DELETE";
    case Operation::Connect: return "CONNECT";
  }
  return "CREATE";
}

namespace {

constexpr std::string_view kApiVersion = "admission.k8s.io/v1";

std::string string_member(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::optional<Operation> operation_of(std::string_view text) {
  if (text == "CREATE") return Operation::Create;
  if (text == "UPDATE") return Operation::Update;
  if (text == "DELETE") return Operation::Delete;
  if (text == "CONNECT") return Operation::Connect;
  return std::nullopt;
}

/// An object member that must be a JSON object when present (request.object, oldObject).
Expected<json::value> object_member(const json::object& request, std::string_view key) {
  const json::value* v = request.if_contains(key);
  if (v == nullptr || v->is_null()) return json::value(nullptr);
  if (!v->is_object()) return fail("request." + std::string(key) + " is not a JSON object");
  return *v;
}

}  // namespace

Expected<AdmissionRequest> decode_admission_review(std::string_view body) {
  auto doc = json::parse(body);
  if (!doc) return fail("the body is not JSON: " + doc.error().message);
  if (!doc->is_object()) return fail("the body is not an AdmissionReview object");
  const json::object& root = doc->get_object();
  const std::string api = string_member(root, "apiVersion");
  if (api != kApiVersion) {
    return fail("apiVersion \"" + api + "\" is not served: send admission.k8s.io/v1 (admissionReviewVersions: [v1])");
  }
  if (string_member(root, "kind") != "AdmissionReview") return fail("kind is not AdmissionReview");
  const json::value* request = root.if_contains("request");
  if (request == nullptr || !request->is_object()) return fail("the AdmissionReview has no request");
  const json::object& r = request->get_object();
  AdmissionRequest out;
  out.uid = string_member(r, "uid");
  if (out.uid.empty()) return fail("request.uid is missing");
  auto op = operation_of(string_member(r, "operation"));
  if (!op) return fail("request.operation \"" + string_member(r, "operation") + "\" is not CREATE, UPDATE, DELETE or CONNECT");
  out.operation = *op;
  if (const json::value* k = r.if_contains("kind"); k != nullptr && k->is_object()) {
    out.group = string_member(k->get_object(), "group");
    out.version = string_member(k->get_object(), "version");
    out.kind = string_member(k->get_object(), "kind");
  }
  if (const json::value* res = r.if_contains("resource"); res != nullptr && res->is_object()) {
    out.resource = string_member(res->get_object(), "resource");
  }
  out.sub_resource = string_member(r, "subResource");
  out.name = string_member(r, "name");
  out.ns = string_member(r, "namespace");
  if (const json::value* dry = r.if_contains("dryRun"); dry != nullptr && dry->is_bool()) out.dry_run = dry->get_bool();
  auto object = object_member(r, "object");
  if (!object) return unexpected(object.error());
  auto old_object = object_member(r, "oldObject");
  if (!old_object) return unexpected(old_object.error());
  out.object = std::move(*object);
  out.old_object = std::move(*old_object);
  if ((out.operation == Operation::Create || out.operation == Operation::Update) && !out.object.is_object()) {
    return fail("request.object is missing for " + std::string(to_string(out.operation)));
  }
  if (out.operation == Operation::Update && !out.old_object.is_object()) return fail("request.oldObject is missing for UPDATE");
  return out;
}

std::string encode_admission_review(const AdmissionResponse& response) {
  json::object r;
  r["uid"] = response.uid;
  r["allowed"] = response.allowed;
  if (response.status) {
    json::object status;
    status["code"] = response.status->code;
    if (!response.status->reason.empty()) status["reason"] = response.status->reason;
    status["message"] = response.status->message;
    r["status"] = std::move(status);
  }
  if (!response.patch.empty()) {
    r["patchType"] = "JSONPatch";
    r["patch"] = core::base64_encode(json::dump(json::value(response.patch)));
  }
  if (!response.warnings.empty()) {
    json::array warnings;
    for (const auto& w : response.warnings) warnings.emplace_back(w);
    r["warnings"] = std::move(warnings);
  }
  json::object root;
  root["apiVersion"] = kApiVersion;
  root["kind"] = "AdmissionReview";
  root["response"] = std::move(r);
  return json::dump(json::value(std::move(root)));
}

AdmissionResponse allowed(std::string uid) {
  AdmissionResponse r;
  r.uid = std::move(uid);
  return r;
}

AdmissionResponse denied(std::string uid, std::string message, int code, std::string reason) {
  AdmissionResponse r;
  r.uid = std::move(uid);
  r.allowed = false;
  r.status = AdmissionStatus{code, std::move(reason), std::move(message)};
  return r;
}

std::string uid_of(std::string_view body) {
  auto doc = json::parse(body);
  if (!doc || !doc->is_object()) return {};
  const json::value* request = doc->get_object().if_contains("request");
  if (request == nullptr || !request->is_object()) return {};
  return string_member(request->get_object(), "uid");
}

}  // namespace kueuepp::kube::webhook
