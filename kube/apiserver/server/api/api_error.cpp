#include "kube/apiserver/server/api/api_error.hpp"

#include <fmt/format.h>

namespace kueuepp::kube::server {

namespace {

/// "jobs.batch" or "configmaps" (core group), as kube-apiserver qualifies resources.
std::string qualified(std::string_view resource, std::string_view group) {
  if (group.empty()) return std::string(resource);
  return fmt::format("{}.{}", resource, group);
}

json::object subject_details(ErrorSubject s) {
  json::object d;
  if (!s.name.empty()) d["name"] = s.name;
  if (!s.group.empty()) d["group"] = s.group;
  d["kind"] = s.resource;
  return d;
}

ApiError make(int code, std::string_view reason, std::string message,
              std::optional<json::object> details = std::nullopt) {
  ApiError e;
  e.code = code;
  e.reason = std::string(reason);
  e.message = std::move(message);
  e.details = std::move(details);
  return e;
}

}  // namespace

json::value to_status(const ApiError& e) {
  json::object s;
  s["kind"] = "Status";
  s["apiVersion"] = "v1";
  s["metadata"] = json::object{};
  s["status"] = "Failure";
  s["message"] = e.message;
  if (!e.reason.empty()) s["reason"] = e.reason;
  if (e.details) s["details"] = *e.details;
  s["code"] = e.code;
  return s;
}

json::value success_status(const json::object& details) {
  json::object s;
  s["kind"] = "Status";
  s["apiVersion"] = "v1";
  s["metadata"] = json::object{};
  s["status"] = "Success";
  s["details"] = details;
  return s;
}

ApiError not_found(ErrorSubject s) {
  return make(404, "NotFound",
              fmt::format("{} \"{}\" not found", qualified(s.resource, s.group), s.name),
              subject_details(s));
}

ApiError already_exists(ErrorSubject s) {
  return make(409, "AlreadyExists",
              fmt::format("{} \"{}\" already exists", qualified(s.resource, s.group), s.name),
              subject_details(s));
}

ApiError conflict(ErrorSubject s, std::string_view why) {
  return make(409, "Conflict",
              fmt::format("Operation cannot be fulfilled on {} \"{}\": {}",
                          qualified(s.resource, s.group), s.name, why),
              subject_details(s));
}

ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 const FieldErrors& causes) {
  std::string list;
  if (causes.size() == 1) {
    list = to_string(causes.front());
  } else {
    list = "[";
    for (std::size_t i = 0; i < causes.size(); ++i) {
      if (i > 0) list += ", ";
      list += to_string(causes[i]);
    }
    list += "]";
  }
  json::array cause_list;
  for (const auto& c : causes) {
    cause_list.push_back(json::object{{"reason", c.type}, {"message", c.message}, {"field", c.field}});
  }
  json::object details;
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  if (!kind.empty()) details["kind"] = kind;
  details["causes"] = std::move(cause_list);
  std::string subject = group.empty() ? std::string(kind) : fmt::format("{}.{}", kind, group);
  return make(422, "Invalid", fmt::format("{} \"{}\" is invalid: {}", subject, name, list),
              std::move(details));
}

ApiError bad_request(std::string message) { return make(400, "BadRequest", std::move(message)); }

ApiError forbidden(ErrorSubject s, std::string_view why) {
  std::string what = s.name.empty() ? qualified(s.resource, s.group)
                                    : fmt::format("{} \"{}\"", qualified(s.resource, s.group), s.name);
  return make(403, "Forbidden", fmt::format("{} is forbidden: {}", what, why), subject_details(s));
}

ApiError method_not_allowed() {
  return make(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
              json::object{});
}

ApiError not_acceptable() {
  return make(406, "NotAcceptable",
              "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml",
              json::object{});
}

ApiError unsupported_media_type(std::string message) {
  return make(415, "UnsupportedMediaType", std::move(message), json::object{});
}

ApiError unknown_resource() {
  return make(404, "NotFound", "the server could not find the requested resource", json::object{});
}

ApiError gone(std::string message) { return make(410, "Expired", std::move(message), json::object{}); }

ApiError request_too_large(std::string message) {
  return make(413, "RequestEntityTooLarge", std::move(message), json::object{});
}

ApiError unauthorized() { return make(401, "Unauthorized", "Unauthorized", json::object{}); }

ApiError internal_error(std::string message) {
  return make(500, "InternalError", fmt::format("Internal error occurred: {}", message),
              json::object{{"causes", json::array{json::object{{"message", message}}}}});
}

ApiError timeout(std::string message) { return make(504, "Timeout", std::move(message), json::object{}); }

}  // namespace kueuepp::kube::server
