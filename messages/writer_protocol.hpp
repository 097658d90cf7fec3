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

/// What a write is for. The writer and the client derive everything else from it (see
/// write_policy_of): whether it goes ahead of others, whether a newer one replaces it
/// while it waits, and how much of its answer is read.
enum class WriteIntent : std::uint8_t {
  /// A workload's admission (quota reserved). Its body overrides everything a pending
  /// explanation of the same object says: when such an explanation, conditional on the
  /// same version, is in flight, the admission waits for its answer; when one landed (its
  /// new version not yet seen by the caller), the admission goes out conditional on the
  /// version the explanation made instead of being refused (409) for the one it replaced.
  Admission,
  Eviction,       ///< a workload holding quota must stop
  CheckDecision,  ///< Kueue's Workload controller on admission checks (Admitted, deactivation)
  JobStep,        ///< a step of a workload integration (suspend, start, create a Workload, ...)
  Read,           ///< WriteVerb::Get: settling a write whose answer was lost, catching up
  PendingExplanation,  ///< a pending workload's QuotaReserved=False reason and message
  QueueStatus,         ///< ClusterQueue and LocalQueue status
  Event,               ///< a Kubernetes Event (the one kind the writer may drop)
};

struct WritePolicy {
  /// Sent ahead of everything not urgent (admissions, evictions, job steps, reads).
  bool urgent = false;
  /// While it waits for budget, a later write of the same intent, object and verb
  /// replaces it (status rewrites); a later urgent write of the object cancels it (both
  /// are computed from the same cached object, and the waiting one, sent after, would
  /// only be refused or, sent first, get the urgent one refused).
  bool coalesce = false;
  enum class Answer : std::uint8_t {
    Whole,         ///< decoded whole (WriteOutcome::object)
    MetadataOnly,  ///< only its metadata is decoded: the caller reads the version it made
    Unread,        ///< nobody reads it: a successful answer is not decoded at all
  };
  Answer answer = Answer::Whole;
  bool follows_in_flight_rewrite = false;  ///< see WriteIntent::Admission
};

constexpr WritePolicy write_policy_of(WriteIntent intent) {
  using A = WritePolicy::Answer;
  switch (intent) {
    case WriteIntent::Admission: return {true, false, A::MetadataOnly, true};
    case WriteIntent::Eviction:
    case WriteIntent::CheckDecision: return {true, false, A::MetadataOnly, false};
    case WriteIntent::JobStep:
    case WriteIntent::Read: return {true, false, A::Whole, false};
    case WriteIntent::PendingExplanation: return {false, true, A::MetadataOnly, false};
    case WriteIntent::QueueStatus:
    case WriteIntent::Event: return {false, true, A::Unread, false};
  }
  return {};
}

struct WriteRequest {
  WriteIntent intent = WriteIntent::JobStep;
  ObjectKind kind = ObjectKind::Workload;
  WriteVerb verb = WriteVerb::MergePatchStatus;
  std::string ns;
  std::string name;
  std::shared_ptr<const json::value> body;
  /// For a Create: the body as JSON text already (used instead of `body`; the Event
  /// recorder writes its Events so, never building them as documents).
  std::shared_ptr<const std::string> body_text;
  /// Patches: written as metadata.resourceVersion, so the server refuses (409) a write
  /// based on a state that changed since it was decided. Empty: unconditional.
  std::string precondition_rv;
  /// The shard whose tree this write acts on. With sharding, the writer sends it only
  /// while this replica holds the shard, and answers NotOwner otherwise (the fence that
  /// keeps a replica that lost a lease from writing). Empty: not tree-scoped.
  std::optional<std::uint32_t> shard;

  WritePolicy policy() const { return write_policy_of(intent); }
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
