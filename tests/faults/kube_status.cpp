#include "tests/faults/kube_status.hpp"

#include "kube/json/json.hpp"

namespace kueuepp::faults {

std::string_view status_reason_for(int code) {
  switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Expired";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return code >= 500 ? "InternalError" : "BadRequest";
  }
}

namespace {

json::object status_object(int code, std::string_view reason, std::string_view message,
                           std::optional<int> retry_after_seconds) {
  json::object status;
  status["kind"] = "Status";
  status["apiVersion"] = "v1";
  status["metadata"] = json::object();
  status["status"] = "Failure";
  status["message"] = message;
  status["reason"] = reason.empty() ? status_reason_for(code) : reason;
  if (retry_after_seconds) {
    json::object details;
    details["retryAfterSeconds"] = *retry_after_seconds;
    status["details"] = std::move(details);
  }
  status["code"] = code;
  return status;
}

}  // namespace

std::string status_json(int code, std::string_view reason, std::string_view message,
                        std::optional<int> retry_after_seconds) {
  return json::dump(status_object(code, reason, message, retry_after_seconds));
}

std::string gone_watch_event_line() {
  json::object event;
  event["type"] = "ERROR";
  event["object"] = status_object(410, "Expired", "too old resource version", std::nullopt);
  return json::dump(event) + "\n";
}

}  // namespace kueuepp::faults
