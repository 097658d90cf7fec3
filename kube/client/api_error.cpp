#include "kube/client/api_error.hpp"

#include <charconv>

namespace kueuepp::kube::client {

namespace {

std::string string_at(const json::value& v, std::string_view key) {
  return std::string(json::get_string(v, key));
}

std::optional<std::int64_t> integer_at(const json::value& v, std::string_view key) {
  const json::value* f = json::find(v, key);
  if (f == nullptr) return std::nullopt;
  if (f->is_int64()) return f->get_int64();
  if (f->is_uint64() && f->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(f->get_uint64());
  }
  if (f->is_double()) return static_cast<std::int64_t>(f->get_double());
  return std::nullopt;
}

StatusDetails decode_details(const json::value& details) {
  StatusDetails out;
  out.name = string_at(details, "name");
  out.group = string_at(details, "group");
  out.kind = string_at(details, "kind");
  out.uid = string_at(details, "uid");
  if (auto seconds = integer_at(details, "retryAfterSeconds"); seconds && *seconds >= 0) {
    out.retry_after_seconds = static_cast<int>(std::min<std::int64_t>(*seconds, 86400));
  }
  if (const json::value* causes = json::find(details, "causes"); causes && causes->is_array()) {
    for (const json::value& c : causes->get_array()) {
      out.causes.push_back({string_at(c, "reason"), string_at(c, "message"), string_at(c, "field")});
    }
  }
  return out;
}

bool has_reason(const ApiError& e, std::string_view reason) { return e.reason == reason; }

std::string truncate(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + "...";
}

}  // namespace

bool ApiError::is_not_found() const {
  return kind == Kind::Status && (http_status == 404 || has_reason(*this, "NotFound"));
}
bool ApiError::is_conflict() const {
  return kind == Kind::Status && http_status == 409 && !has_reason(*this, "AlreadyExists");
}
bool ApiError::is_already_exists() const {
  return kind == Kind::Status && has_reason(*this, "AlreadyExists");
}
bool ApiError::is_gone() const {
  return kind == Kind::Status &&
         (http_status == 410 || has_reason(*this, "Gone") || has_reason(*this, "Expired"));
}
bool ApiError::is_invalid() const {
  return kind == Kind::Status && (http_status == 422 || has_reason(*this, "Invalid"));
}
bool ApiError::is_bad_request() const {
  return kind == Kind::Status && (http_status == 400 || has_reason(*this, "BadRequest"));
}
bool ApiError::is_unauthorized() const { return kind == Kind::Status && http_status == 401; }
bool ApiError::is_forbidden() const { return kind == Kind::Status && http_status == 403; }
bool ApiError::is_too_many_requests() const {
  return kind == Kind::Status && (http_status == 429 || has_reason(*this, "TooManyRequests"));
}
bool ApiError::is_server_timeout() const {
  return kind == Kind::Status && (http_status == 504 || has_reason(*this, "ServerTimeout") ||
                                  has_reason(*this, "Timeout"));
}

bool ApiError::may_have_been_applied() const {
  if (not_sent) return false;
  switch (kind) {
    case Kind::Status: return http_status >= 500;
    case Kind::Transport:
    case Kind::Timeout:
    case Kind::Cancelled:
    case Kind::Decode: return true;
    case Kind::Usage: return false;
  }
  return true;
}

bool ApiError::is_retryable() const {
  switch (kind) {
    case Kind::Transport:
    case Kind::Timeout:
      return true;
    case Kind::Status:
      return is_too_many_requests() || is_server_timeout() || http_status >= 500;
    default:
      return false;
  }
}

std::string ApiError::describe() const {
  std::string out = operation.empty() ? std::string("request") : operation;
  switch (kind) {
    case Kind::Status:
      out += ": " + std::to_string(http_status);
      if (!reason.empty()) out += " " + reason;
      break;
    case Kind::Transport: out += ": connection failed"; break;
    case Kind::Timeout: out += ": timed out"; break;
    case Kind::Cancelled: out += ": cancelled"; break;
    case Kind::Decode: out += ": unreadable response"; break;
    case Kind::Usage: out += ": invalid call"; break;
  }
  if (!message.empty()) out += ": " + message;
  for (const StatusCause& c : details.causes) {
    out += " [" + (c.field.empty() ? std::string("<object>") : c.field) + ": " + c.reason;
    if (!c.message.empty()) out += ", " + c.message;
    out += "]";
  }
  return out;
}

ApiError make_error(ApiError::Kind kind, std::string operation, std::string message) {
  ApiError e;
  e.kind = kind;
  e.operation = std::move(operation);
  e.message = std::move(message);
  return e;
}

ApiError fence_deadline_error(std::string operation, std::chrono::steady_clock::duration late) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(late).count();
  ApiError e = make_error(ApiError::Kind::Cancelled, std::move(operation),
                          "not sent: its deadline (the end of the Lease its sender held) passed " +
                              std::to_string(ms) + " ms before it could go out; the Lease's holder now decides");
  e.reason = "NotOwner";
  e.not_sent = true;
  return e;
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  long long seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || seconds < 0) return std::nullopt;
  return std::chrono::seconds(std::min<long long>(seconds, 86400));
}

std::string_view reason_for_status(int http_status) {
  switch (http_status) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return http_status >= 500 ? "InternalError" : "Unknown";
  }
}

ApiError decode_status_object(const json::value& status, std::string operation) {
  ApiError e;
  e.kind = ApiError::Kind::Status;
  e.operation = std::move(operation);
  e.http_status = static_cast<int>(integer_at(status, "code").value_or(0));
  e.reason = string_at(status, "reason");
  e.message = string_at(status, "message");
  if (const json::value* details = json::find(status, "details")) e.details = decode_details(*details);
  if (e.details.retry_after_seconds) e.retry_after = std::chrono::seconds(*e.details.retry_after_seconds);
  if (e.reason.empty() && e.http_status != 0) e.reason = std::string(reason_for_status(e.http_status));
  return e;
}

ApiError decode_error_response(const HttpResponse& response, std::string operation) {
  ApiError e;
  bool decoded = false;
  if (auto parsed = json::parse(response.body);
      parsed && json::get_string(*parsed, "kind") == "Status") {
    e = decode_status_object(*parsed, std::move(operation));
    decoded = true;
  } else {
    e.operation = std::move(operation);
    e.message = truncate(response.body, 512);
    while (!e.message.empty() && (e.message.back() == '\n' || e.message.back() == '\r')) {
      e.message.pop_back();
    }
  }
  e.kind = ApiError::Kind::Status;
  // The HTTP status is authoritative (a Status body may omit `code`).
  e.http_status = response.status;
  if (!decoded || e.reason.empty()) e.reason = std::string(reason_for_status(response.status));
  if (auto header = find_header(response.headers, "Retry-After")) {
    if (auto seconds = parse_retry_after(*header)) e.retry_after = *seconds;
  }
  return e;
}

}  // namespace kueuepp::kube::client
