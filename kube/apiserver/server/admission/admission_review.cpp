#include "kube/apiserver/server/admission/admission_review.hpp"

#include <fmt/format.h>

#include "core/base64.hpp"

namespace kueuepp::kube::server {

namespace {

json::object gvk(const ResourceType& t) {
  return json::object{{"group", t.group}, {"version", t.version}, {"kind", t.kind}};
}

json::object gvr(const ResourceType& t) {
  return json::object{{"group", t.group}, {"version", t.version}, {"resource", t.plural}};
}

std::string_view kind_of(const json::value& doc) { return json::get_string(doc, "kind"); }

}  // namespace

namespace {

/// authentication.k8s.io/v1 UserInfo of the requester; the server's own writes (garbage
/// collection, namespace deletion) go as kube-apiserver's loopback client does.
json::value user_info(const RequestUser* user) {
  if (user == nullptr || user->name.empty()) {
    return json::object{{"username", "system:apiserver"}, {"groups", json::array{"system:masters"}}};
  }
  json::object info;
  info["username"] = user->name;
  if (!user->uid.empty()) info["uid"] = user->uid;
  json::array groups;
  for (const auto& g : user->groups) groups.push_back(json::value(g));
  info["groups"] = std::move(groups);
  if (!user->extra.empty()) {
    json::object extra;
    for (const auto& [key, values] : user->extra) {
      json::array list;
      for (const auto& v : values) list.push_back(json::value(v));
      extra[key] = std::move(list);
    }
    info["extra"] = std::move(extra);
  }
  return info;
}

}  // namespace

json::value make_admission_review(const ReviewRequest& r) {
  json::object req;
  req["uid"] = r.uid;
  req["kind"] = gvk(*r.resource);
  req["resource"] = gvr(*r.resource);
  if (!r.subresource.empty()) req["subResource"] = r.subresource;
  req["requestKind"] = gvk(*r.requested);
  req["requestResource"] = gvr(*r.requested);
  if (!r.subresource.empty()) req["requestSubResource"] = r.subresource;
  if (!r.name.empty()) req["name"] = r.name;
  if (!r.ns.empty()) req["namespace"] = r.ns;
  req["operation"] = r.operation;
  req["userInfo"] = user_info(r.user);
  req["object"] = r.object != nullptr ? *r.object : json::value(nullptr);
  req["oldObject"] = r.old_object != nullptr ? *r.old_object : json::value(nullptr);
  req["dryRun"] = r.dry_run;
  req["options"] = r.options != nullptr ? *r.options : json::value(nullptr);
  return json::object{{"kind", "AdmissionReview"},
                      {"apiVersion", fmt::format("admission.k8s.io/{}", r.review_version)},
                      {"request", std::move(req)}};
}

Expected<ReviewResponse> read_admission_response(std::string_view body, std::string_view uid,
                                                 std::string_view review_version, bool mutating) {
  auto doc = json::parse(body);
  if (!doc) return fail(fmt::format("failed to call webhook: {}", doc.error().message));
  if (!doc->is_object()) {
    return fail(fmt::format("failed to call webhook: json: cannot unmarshal {} into Go value of type {}.AdmissionReview",
                            doc->is_array() ? "array" : "value", review_version));
  }
  auto invalid = [](std::string why) { return fail(fmt::format("received invalid webhook response: {}", why)); };
  const json::value* response = json::find(*doc, "response");
  if (response == nullptr || !response->is_object()) return invalid("webhook response was absent");
  const bool v1 = review_version == "v1";
  if (v1) {
    std::string_view got_uid = json::get_string(*response, "uid");
    if (got_uid != uid) return invalid(fmt::format("expected response.uid=\"{}\", got \"{}\"", uid, got_uid));
    std::string_view api_version = json::get_string(*doc, "apiVersion");
    if (api_version != "admission.k8s.io/v1" || kind_of(*doc) != "AdmissionReview") {
      return invalid(fmt::format("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {}, Kind={}",
                                 api_version, kind_of(*doc)));
    }
  }
  ReviewResponse out;
  const json::value* allowed = json::find(*response, "allowed");
  out.allowed = allowed != nullptr && allowed->is_bool() && allowed->get_bool();
  const json::value* patch = json::find(*response, "patch");
  const json::value* patch_type = json::find(*response, "patchType");
  const bool has_patch = patch != nullptr && patch->is_string() && !patch->get_string().empty();
  const bool has_type = patch_type != nullptr && !patch_type->is_null();
  if (mutating && v1) {
    if (has_patch && !has_type) return invalid("webhook returned response.patch but not response.patchType");
    if (!has_patch && has_type) return invalid("webhook returned response.patchType but not response.patch");
    if (has_type && (!patch_type->is_string() || patch_type->get_string().empty())) {
      return invalid("webhook returned invalid response.patchType of \"\"");
    }
    if (has_type && patch_type->get_string() != "JSONPatch") {
      return fail(fmt::format("unsupported patch type \"{}\"", std::string_view(patch_type->get_string())));
    }
  } else if (!mutating && v1) {
    if (has_patch) return invalid("validating webhook may not return response.patch");
    if (has_type) return invalid("validating webhook may not return response.patchType");
  }
  if (mutating && has_patch) {
    std::size_t bad_at = 0;
    auto decoded = core::base64_decode(patch->get_string(), &bad_at);
    if (!decoded) {
      return fail(fmt::format("failed to call webhook: illegal base64 data at input byte {}", bad_at));
    }
    out.patch = std::move(*decoded);
  }
  if (const json::value* status = json::find(*response, "status"); status != nullptr && status->is_object()) {
    out.result = *status;
  }
  if (const json::value* warnings = json::find(*response, "warnings"); warnings != nullptr && warnings->is_array()) {
    for (const auto& w : warnings->as_array()) {
      if (w.is_string()) out.warnings.emplace_back(w.get_string());
    }
  }
  return out;
}

ApiError webhook_call_failed(std::string_view webhook, std::string_view reason) {
  return internal_error(fmt::format("failed calling webhook \"{}\": {}", webhook, reason));
}

ApiError webhook_denied(std::string_view webhook, const json::value& result) {
  std::string denied_by = fmt::format("admission webhook \"{}\" denied the request", webhook);
  ApiError e;
  const json::value* code = result.is_object() ? json::find(result, "code") : nullptr;
  e.code = code != nullptr && code->is_int64() ? static_cast<int>(code->get_int64()) : 0;
  if (e.code < 400) e.code = 400;
  std::string_view message = result.is_object() ? json::get_string(result, "message") : "";
  std::string_view reason = result.is_object() ? json::get_string(result, "reason") : "";
  e.reason = std::string(reason);
  if (!message.empty()) {
    e.message = fmt::format("{}: {}", denied_by, message);
  } else if (!reason.empty()) {
    e.message = fmt::format("{}: {}", denied_by, reason);
  } else {
    e.message = fmt::format("{} without explanation", denied_by);
  }
  if (const json::value* details = result.is_object() ? json::find(result, "details") : nullptr;
      details != nullptr && details->is_object()) {
    e.details = details->as_object();
  }
  return e;
}

ApiError webhook_no_dry_run(std::string_view webhook) {
  return bad_request(fmt::format("admission webhook \"{}\" does not support dry run", webhook));
}

}  // namespace kueuepp::kube::server
