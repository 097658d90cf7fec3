#pragma once

// client-go's leader election algorithm (k8s.io/client-go/tools/leaderelection) for one
// Lease, as a pure state machine: no I/O, no clock, no threads. The caller performs the
// action each input returns and reports how it went; time comes in with every input.
//
//   tick            -> Get (when no request is in flight)
//   observed        -> NotFound and wanted: Create (holder me, transitions 0)
//                      held by another and seen changing within its lease duration: back off
//                      free, expired, or mine and wanted: Update with the resourceVersion
//                      as precondition (acquire: transitions + 1; renew: keep them)
//   write_succeeded -> leading until the request's send time + renew deadline
//   write_failed    -> 409 means another writer won the race: nothing until the next tick
//
// Leading ends when no renewal succeeded within the renew deadline, whether or not a
// request is still in flight (a hung request decides nothing), or as soon as a read
// shows another holder. Release (graceful hand-over or shutdown) clears the holder and
// sets leaseDurationSeconds to 1; it is requested with set_wanted(false) only after the
// caller has stopped acting on what the lease guards.

#include <optional>
#include <string>

#include "kube/leader/election_timing.hpp"
#include "kube/leader/lease_observation.hpp"
#include "kube/leader/lease_record.hpp"

namespace kueuepp::kube::leader {

struct ElectionAction {
  enum class Kind {
    None,
    Get,      ///< read the lease (NotFound is an answer, not an error)
    Create,   ///< create it with `record`
    Update,   ///< replace the spec with `record`, precondition `resource_version`
    Release,  ///< an Update that gives the lease up (holder cleared)
  };
  Kind kind = Kind::None;
  LeaseRecord record;
  std::string resource_version;

  bool is_write() const { return kind == Kind::Create || kind == Kind::Update || kind == Kind::Release; }
};

enum class WriteFailure {
  Conflict,  ///< 409 (Conflict on update, AlreadyExists on create): another writer won
  Other,     ///< anything else (timeout, transport, 5xx, forbidden...)
};

class LeaseElection {
 public:
  LeaseElection(std::string identity, ElectionTiming timing, bool wanted = true);

  // -- inputs (each returns what to do next; the caller reports its outcome) ---------
  /// Once per retry period.
  ElectionAction tick(Instant now);
  /// The answer to a Get: the lease, or nullopt for NotFound. Also accepted without a
  /// Get of ours (a shared list); it then only updates what is known while a write is
  /// in flight.
  ElectionAction observed(const std::optional<ObservedLease>& lease, Instant now);
  /// The Get failed (anything but NotFound): try again at the next tick.
  ElectionAction read_failed(Instant now);
  /// The server's answer to our write, which was sent at `sent_at`.
  ElectionAction write_succeeded(const ObservedLease& written, LocalTime sent_at, Instant now);
  ElectionAction write_failed(WriteFailure failure, Instant now);
  /// Whether this process should hold the lease; acts on the last read at once when
  /// no request is in flight. Turning it off while holding stops leading at once and
  /// releases the lease (after the request in flight, if any): call it only once nothing
  /// acts on the lease's behalf any more. An unwanted lease found held by this process
  /// (an acquisition that landed after all) is released too.
  ElectionAction set_wanted(bool wanted, Instant now);

  // -- state -----------------------------------------------------------------------
  bool leading(LocalTime now) const;
  /// While this process holds the lease and wants it: when leading ends unless a
  /// renewal succeeds first (last successful send + renew deadline).
  std::optional<LocalTime> leading_until() const;
  bool wanted() const { return wanted_; }
  /// A request is in flight (no new one is started until it is reported).
  bool busy() const { return in_flight_ != InFlight::None; }
  /// Held (as last seen) but no longer wanted: a release is due.
  bool release_pending() const { return !wanted_ && holds_record(); }
  const LeaseObservation& observation() const { return observation_; }
  const std::string& identity() const { return identity_; }
  const ElectionTiming& timing() const { return timing_; }

 private:
  enum class InFlight { None, Read, Write };

  bool holds_record() const { return observation_.holder() == identity_; }
  /// What to do with the lease as observed now (no request in flight).
  ElectionAction decide(Instant now);
  ElectionAction create(Instant now);
  ElectionAction renew(Instant now);
  ElectionAction acquire(Instant now);
  ElectionAction release(Instant now);
  ElectionAction write(ElectionAction action);

  std::string identity_;
  ElectionTiming timing_;
  bool wanted_;
  InFlight in_flight_ = InFlight::None;
  LeaseObservation observation_;
  /// Send time of the last write that made or kept us the holder.
  std::optional<LocalTime> last_success_;
};

}  // namespace kueuepp::kube::leader
