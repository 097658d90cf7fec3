#include "kube/leader/lease_election.hpp"

#include <utility>

namespace kueuepp::kube::leader {

LeaseElection::LeaseElection(std::string identity, ElectionTiming timing, bool wanted)
    : identity_(std::move(identity)), timing_(timing), wanted_(wanted) {}

ElectionAction LeaseElection::tick(Instant) {
  if (busy()) return {};
  in_flight_ = InFlight::Read;
  return ElectionAction{ElectionAction::Kind::Get, {}, {}};
}

ElectionAction LeaseElection::observed(const std::optional<ObservedLease>& lease, Instant now) {
  observation_.observe(lease, now.local);
  // Someone else holds it (or nobody): whatever we held is gone.
  if (!holds_record()) last_success_.reset();
  if (in_flight_ == InFlight::Write) return {};  // the write's answer decides
  in_flight_ = InFlight::None;
  return decide(now);
}

ElectionAction LeaseElection::read_failed(Instant) {
  if (in_flight_ == InFlight::Read) in_flight_ = InFlight::None;
  return {};
}

ElectionAction LeaseElection::write_succeeded(const ObservedLease& written, LocalTime sent_at, Instant now) {
  in_flight_ = InFlight::None;
  observation_.observe(written, now.local);
  if (holds_record()) {
    // Measured from the send, not the answer: nobody can have seen this version before
    // it was sent, so everyone else waits at least lease_duration > renew_deadline past it.
    last_success_ = sent_at;
    // Unwanted while this write was in flight (or written by an acquisition that was
    // started before): give it back at once instead of leaving it to expire.
    if (!wanted_) return release(now);
  } else {
    last_success_.reset();
  }
  return {};
}

ElectionAction LeaseElection::write_failed(WriteFailure, Instant) {
  // A 409 means another writer changed the lease since we read it: we lost this round.
  // Either way the next tick reads again; leading, if it was, runs out on its deadline.
  in_flight_ = InFlight::None;
  return {};
}

ElectionAction LeaseElection::set_wanted(bool wanted, Instant now) {
  wanted_ = wanted;
  // Act on what was last read (the caller decides right after a read; a stale read only
  // costs a 409): acquire or renew when wanted, release when held and not wanted.
  return busy() ? ElectionAction{} : decide(now);
}

bool LeaseElection::leading(LocalTime now) const {
  auto until = leading_until();
  return until && now < *until;
}

std::optional<LocalTime> LeaseElection::leading_until() const {
  if (!wanted_ || !holds_record() || !last_success_) return std::nullopt;
  return *last_success_ + timing_.renew_deadline;
}

ElectionAction LeaseElection::decide(Instant now) {
  if (!observation_.known()) return {};
  if (!wanted_) return holds_record() ? release(now) : ElectionAction{};
  if (observation_.lease() == nullptr) return create(now);
  if (holds_record()) return renew(now);
  if (observation_.held(now.local)) return {};  // another holder, seen renewing: back off
  return acquire(now);
}

ElectionAction LeaseElection::create(Instant now) {
  LeaseRecord r;
  r.holder_identity = identity_;
  r.lease_duration_seconds = lease_duration_seconds(timing_);
  r.acquire_time = now.wall;
  r.renew_time = now.wall;
  r.lease_transitions = 0;
  return write(ElectionAction{ElectionAction::Kind::Create, std::move(r), {}});
}

ElectionAction LeaseElection::renew(Instant now) {
  const ObservedLease& seen = *observation_.lease();
  LeaseRecord r = seen.record;  // keeps acquireTime and leaseTransitions
  r.lease_duration_seconds = lease_duration_seconds(timing_);
  r.renew_time = now.wall;
  if (!r.acquire_time) r.acquire_time = now.wall;
  return write(ElectionAction{ElectionAction::Kind::Update, std::move(r), seen.resource_version});
}

ElectionAction LeaseElection::acquire(Instant now) {
  const ObservedLease& seen = *observation_.lease();
  LeaseRecord r;
  r.holder_identity = identity_;
  r.lease_duration_seconds = lease_duration_seconds(timing_);
  r.acquire_time = now.wall;
  r.renew_time = now.wall;
  r.lease_transitions = seen.record.lease_transitions + 1;
  return write(ElectionAction{ElectionAction::Kind::Update, std::move(r), seen.resource_version});
}

ElectionAction LeaseElection::release(Instant now) {
  const ObservedLease& seen = *observation_.lease();
  LeaseRecord r;
  r.holder_identity.clear();
  r.lease_duration_seconds = 1;
  r.acquire_time = now.wall;
  r.renew_time = now.wall;
  r.lease_transitions = seen.record.lease_transitions;
  return write(ElectionAction{ElectionAction::Kind::Release, std::move(r), seen.resource_version});
}

ElectionAction LeaseElection::write(ElectionAction action) {
  in_flight_ = InFlight::Write;
  return action;
}

}  // namespace kueuepp::kube::leader
