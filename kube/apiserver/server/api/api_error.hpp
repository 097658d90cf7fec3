#pragma once

// ApiError: a failed request as kube-apiserver reports it, a metav1.Status with an HTTP
// code. Every handler returns these; the HTTP layer serializes them.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/field_error.hpp"

namespace kueuepp::kube::server {

struct ApiError {
  int code = 500;
  std::string reason;   ///< metav1.StatusReason: "NotFound", "Invalid", ...
  std::string message;  ///< says what failed and on which object
  /// Status.details; absent for errors kube-apiserver reports without details (400s).
  std::optional<json::object> details;
  /// Extra response headers (Retry-After, ...).
  std::vector<std::pair<std::string, std::string>> headers;
};

template <class T>
using ApiResult = Expected<T, ApiError>;
using ApiStatus = Expected<void, ApiError>;

inline Unexpected<ApiError> api_fail(ApiError e) { return {std::move(e)}; }

/// The resource an error is about, as Status details name it: the group and the plural
/// resource name ("jobs"), or for Invalid the Kind ("Job").
struct ErrorSubject {
  std::string_view group;
  std::string_view resource;  ///< plural, e.g. "jobs"
  std::string_view name;
};

/// metav1.Status JSON for the error.
json::value to_status(const ApiError& e);
/// The success Status a DELETE answers with.
json::value success_status(const json::object& details);

ApiError not_found(ErrorSubject s);
ApiError already_exists(ErrorSubject s);
ApiError conflict(ErrorSubject s, std::string_view why);
/// 422 with causes; `kind` is the Kind ("Job"), `group` its group.
ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 const FieldErrors& causes);
ApiError bad_request(std::string message);
ApiError forbidden(ErrorSubject s, std::string_view why);
ApiError method_not_allowed();
ApiError not_acceptable();
ApiError unsupported_media_type(std::string message);
ApiError unknown_resource();
ApiError gone(std::string message);
ApiError request_too_large(std::string message);
ApiError unauthorized();
ApiError internal_error(std::string message);
ApiError timeout(std::string message);

}  // namespace kueuepp::kube::server
