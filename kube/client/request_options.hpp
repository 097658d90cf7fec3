#pragma once

// Options of the verbs, as the Kubernetes API defines them (metav1.ListOptions,
// CreateOptions/UpdateOptions/PatchOptions, DeleteOptions, watch parameters).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "kube/json/json.hpp"

namespace kueuepp::kube::client {

struct GetOptions {
  std::string resource_version;  ///< "" (most recent), "0" (any), or a specific version
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t limit = 0;          ///< 0: no limit (one page)
  std::string continue_token;
  std::string resource_version;
  std::string resource_version_match;  ///< NotOlderThan / Exact
};

struct WriteOptions {
  /// Empty: the client's default field manager (ClientOptions::field_manager).
  std::string field_manager;
  bool dry_run = false;
  /// "", Ignore, Warn or Strict.
  std::string field_validation;
  /// Write the `status` subresource instead of the main resource.
  bool status_subresource = false;
  /// The answer is decoded to its apiVersion, kind and metadata only (see
  /// DecodeOptions::metadata_only): for callers that need only its resourceVersion.
  bool metadata_only_answer = false;
  /// Nobody reads the answer (DecodeOptions::unread): a successful one comes back as `{}`
  /// without being parsed; an error is decoded as always.
  bool answer_unread = false;
  /// Nobody waits on this write's latency (an Event, a status rewrite): when the rate
  /// limiter delays it, it may go out at the next throttle step
  /// (ClientOptions::throttle_granularity) with the others delayed to that step.
  bool may_wait_for_step = false;
  /// Nobody waits on it, and it must not make anyone wait: the write takes a token only
  /// when one is free that no other request reserved (RateLimiter::take_spare), so it
  /// never delays a write sent after it, and waits as long as the others spend the
  /// whole budget.
  bool background = false;
  /// Fencing: the request is not written to a connection once this (steady clock) time
  /// has passed, however long the rate limiter or the io thread held it; it fails with
  /// fence_deadline_error (kind Cancelled, reason NotOwner, not_sent). Empty: no deadline.
  std::optional<std::chrono::steady_clock::time_point> send_before;
};

enum class PatchType {
  Merge,           ///< application/merge-patch+json (RFC 7386)
  Json,            ///< application/json-patch+json (RFC 6902)
  StrategicMerge,  ///< application/strategic-merge-patch+json (built-in kinds only)
  Apply,           ///< application/apply-patch+yaml (server-side apply; JSON is valid YAML)
};

/// The Content-Type of a patch type.
const char* patch_content_type(PatchType type);

struct PatchOptions : WriteOptions {
  /// Server-side apply only: take ownership of conflicting fields.
  bool force = false;
  /// Merge and strategic merge patches: sent as metadata.resourceVersion, so that the
  /// server refuses the patch (409 Conflict) if the object changed since that version.
  /// Added while the patch is serialized (the caller's document is not copied).
  std::string precondition_resource_version;
};

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  /// Orphan, Background or Foreground.
  std::optional<std::string> propagation_policy;
  std::optional<std::int64_t> grace_period_seconds;
  bool dry_run = false;

  /// The `DeleteOptions` body sent with the request (null when every field is unset).
  json::value to_body() const;
};

struct WatchOptions {
  /// Start after this version ("" = current state with synthetic ADDED events).
  std::string resource_version;
  std::string label_selector;
  std::string field_selector;
  bool allow_bookmarks = true;
  /// Server-side timeout; 0 leaves it to the server. The informer randomizes it.
  std::int64_t timeout_seconds = 0;
  /// Events carry their objects packed (WatchEvent::packed, DecodeOptions::
  /// pack_object_member): for caches that keep them so and read them in place.
  bool packed_objects = false;
};

}  // namespace kueuepp::kube::client
