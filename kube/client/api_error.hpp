#pragma once

// The typed error of every client call: a decoded Kubernetes `Status` (the server
// answered with an error) or a local failure (transport, timeout, cancellation, bad
// response, bad usage). Predicates mirror k8s.io/apimachinery/pkg/api/errors.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client/http_types.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::client {

/// One `details.causes[]` entry of a Status.
struct StatusCause {
  std::string reason;  ///< e.g. FieldValueRequired
  std::string message;
  std::string field;   ///< e.g. spec.podSets[0].template
};

/// `details` of a Status.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  std::optional<int> retry_after_seconds;
};

struct ApiError {
  enum class Kind {
    Status,     ///< the server answered with a non-2xx status (fields below are decoded)
    Transport,  ///< could not connect, connection reset, TLS failure, ...
    Timeout,    ///< no answer within the request timeout
    Cancelled,  ///< cancelled by the caller or by client shutdown
    Decode,     ///< the server answered 2xx with a body we cannot read
    Usage,      ///< the call itself was wrong (no name, blocking call on the io thread, ...)
  };

  Kind kind = Kind::Status;
  int http_status = 0;
  std::string reason;   ///< metav1.StatusReason: NotFound, Conflict, AlreadyExists, ...
  std::string message;  ///< the server's (or our) message
  StatusDetails details;
  /// From the Retry-After header, else from details.retryAfterSeconds.
  std::optional<std::chrono::seconds> retry_after;
  /// What was being done: `GET /apis/batch/v1/namespaces/a/jobs/j1`.
  std::string operation;
  /// For Transport errors: true when the request surely did not reach the server
  /// (resolve, connect or TLS handshake failed), so even non-idempotent calls may retry.
  bool not_sent = false;

  bool is_not_found() const;
  bool is_conflict() const;        ///< 409 Conflict (stale resourceVersion)
  bool is_already_exists() const;  ///< 409 AlreadyExists
  bool is_gone() const;            ///< 410 Gone / Expired (re-list)
  bool is_invalid() const;         ///< 422 Invalid
  bool is_bad_request() const;
  bool is_unauthorized() const;
  bool is_forbidden() const;
  bool is_too_many_requests() const;
  bool is_server_timeout() const;  ///< 504 or reason ServerTimeout / Timeout
  bool is_transport() const { return kind == Kind::Transport; }
  bool is_timeout() const { return kind == Kind::Timeout; }
  bool is_cancelled() const { return kind == Kind::Cancelled; }
  /// Worth retrying later: 429, 5xx, transport failures and timeouts.
  bool is_retryable() const;
  /// Whether a write that failed so may nonetheless have been applied: it was sent (or
  /// may have been) and no answer says the server refused it. A reset or timeout after
  /// sending, a 5xx (kube-apiserver answers 500 and 504 for writes etcd may still
  /// commit), an answer that could not be read. Known not applied: not sent, or refused
  /// with a 4xx (including 429, which the server answers before acting).
  bool may_have_been_applied() const;

  /// One line for logs and users: operation, status, reason, message, causes.
  std::string describe() const;
};

/// Builds a local (non-Status) error.
ApiError make_error(ApiError::Kind kind, std::string operation, std::string message);

/// A fenced request (HttpRequest::send_before) that was not sent: its deadline, the end
/// of the Lease its sender held, passed `late` before it could go out. Kind Cancelled,
/// reason NotOwner (what the writer answers for a shard it does not hold), not_sent.
ApiError fence_deadline_error(std::string operation, std::chrono::steady_clock::duration late);

/// Decodes the answer to a failed request: a `kind: Status` JSON body when there is one,
/// else a generic error for the HTTP status (as client-go does for non-Status bodies).
ApiError decode_error_response(const HttpResponse& response, std::string operation);

/// Decodes a Status object (e.g. the object of an in-stream watch ERROR event).
ApiError decode_status_object(const json::value& status, std::string operation);

/// Parses a Retry-After header value (delta-seconds only, as kube-apiserver sends).
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value);

/// The StatusReason kube-apiserver uses for a bare HTTP status code.
std::string_view reason_for_status(int http_status);

}  // namespace kueuepp::kube::client
