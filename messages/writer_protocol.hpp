#pragma once

// Any actor -> writer actor: one write to the API server, answered with WriteOutcome
// (a request/response pair; the writer always answers, also when a later request for
// the same object superseded this one).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "kube/json/json.hpp"
#include "messages/object_kind.hpp"
#include "messages/watch_events.hpp"

namespace kueuepp::messages {

enum class WriteVerb : std::uint8_t {
  MergePatch,        ///< JSON merge patch of the object
  MergePatchStatus,  ///< JSON merge patch of the status subresource
  Create,
  Update,  ///< PUT of the whole object (its resourceVersion is the precondition)
  Delete,
  /// A read of the object as stored now (no body; answered with it, or NotFound): how a
  /// caller learns whether a write whose answer was lost landed, or catches up with an
  /// object its watch has not delivered yet.
  Get,
};

struct WriteRequest {
  ObjectKind kind = ObjectKind::Workload;
  WriteVerb verb = WriteVerb::MergePatchStatus;
  std::string ns;
  std::string name;
  std::shared_ptr<const json::value> body;
  /// Patches: written as metadata.resourceVersion, so the server refuses (409) a write
  /// based on a state that changed since it was decided. Empty: unconditional.
  std::string precondition_rv;
  /// A later coalescable request for the same object and verb replaces this one while
  /// it waits for budget (status rewrites); admissions are never coalesced. A later
  /// urgent request for the same object and verb also cancels it (answered superseded):
  /// both are computed from the same cached object, and the waiting one, sent after,
  /// would only be refused or, sent first, get the urgent one refused.
  bool coalesce = false;
  /// Sent ahead of everything coalescable (admissions, evictions, job starts).
  bool urgent = false;
  /// The shard whose tree this write acts on. With sharding, the writer sends it only
  /// while this replica holds the shard, and answers NotOwner otherwise (the fence that
  /// keeps a replica that lost a lease from writing). Empty: not tree-scoped.
  std::optional<std::uint32_t> shard;
  /// The caller reads only the metadata of WriteOutcome::object (its resourceVersion):
  /// the rest of the answer is not decoded.
  bool metadata_only_answer = false;
  /// For a Create: the body as JSON text already (used instead of `body`; the Event
  /// recorder writes its Events so, never building them as documents).
  std::shared_ptr<const std::string> body_text;
  /// Nobody reads the answer: a successful one is not decoded at all and
  /// WriteOutcome::object stays null (refusals are decoded as always).
  bool answer_unread = false;
  /// Urgent and conditional, and its body overrides everything a coalescable rewrite of
  /// the same object changes (an admission over a pending explanation): had the rewrite
  /// still been waiting, this write would have cancelled it. When such a rewrite,
  /// conditional on the same version, is already in flight, this write waits for its
  /// answer; when such a rewrite landed (then, or before this write was asked for, its
  /// new version not yet seen by the caller), this write goes out conditional on the
  /// version the rewrite made instead of being refused (409) for the version it replaced.
  bool follows_in_flight_rewrite = false;
  /// Set by the writer as it sends the write (WriterOptions::normal_writes_in_background):
  /// the client gives it only the budget other writes leave.
  bool background = false;
  /// Set by the writer as it sends a write of a shard: the end of the shard's Lease
  /// validity. The client does not send it after that (a write handed over just before
  /// this replica was frozen, or held by the rate limiter past its Lease) and answers
  /// NotOwner, so the fence holds up to the socket and not only up to the writer.
  std::optional<std::chrono::steady_clock::time_point> send_before;
};

struct WriteOutcome {
  bool ok = false;
  bool superseded = false;  ///< replaced by a later request for the same object
  /// Superseded by an urgent write (not by a newer rewrite carrying the same intent):
  /// what this write said must be said again once that write settled. Answered when it
  /// settled, saying whether it landed: if it did not, no version of the object follows
  /// from it, and the caller must not wait for one.
  bool superseded_by_urgent = false;
  bool superseding_write_landed = false;
  /// Not ok, and nothing says the server refused it: it was sent (or may have been) and
  /// its answer was lost (a reset, a timeout, a 5xx, an unreadable answer). It may have
  /// landed: the caller keeps what it would hold (an admission's quota) until a read of
  /// the object says whether it did. Only a write known not to have landed (a 4xx, not
  /// sent, fenced) is rolled back at once.
  bool maybe_landed = false;
  int http_status = 0;      ///< 0: no answer (connection error, shutdown)
  std::string reason;       ///< Kubernetes Status reason (Conflict, NotFound, ...), or NotOwner
  std::string message;
  ObjectPtr object;  ///< the object as written (ok only)
};

/// Graceful hand-over: answered (WritesDrained) once no tree-scoped write (one carrying a
/// shard) is in flight any more. Sent after the writer was told that nothing is held, so
/// it refuses new ones; a Lease released after the answer can no longer be followed by a
/// write of this replica landing on a tree another replica already acts on.
struct DrainWrites {};
struct WritesDrained {
  std::size_t waited_for = 0;  ///< tree-scoped writes that were in flight when asked
};

/// The writer's own message: a write it issued has completed (sent from the client's
/// io thread).
struct WriteDone {
  std::uint64_t id = 0;
  WriteOutcome outcome;
};

}  // namespace kueuepp::messages
