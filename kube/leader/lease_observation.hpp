#pragma once

// What this process has seen of one Lease, and when, on its own monotonic clock.
// Leader election trusts nothing else: a holder counts as gone once its record has not
// changed for the record's leaseDurationSeconds since this process first saw that
// version (client-go's observedTime). renewTime in the record is never compared with
// the local clock.

#include <optional>
#include <string_view>

#include "kube/leader/election_timing.hpp"
#include "kube/leader/lease_record.hpp"

namespace kueuepp::kube::leader {

class LeaseObservation {
 public:
  /// A read (or one of our own writes) answered at `now`: the lease, or nullopt for
  /// NotFound. Only a change of the record restarts the expiry clock; a change of
  /// anything else (labels, resourceVersion alone) does not.
  void observe(const std::optional<ObservedLease>& lease, LocalTime now);

  /// Nothing is known before the first observation.
  bool known() const { return known_; }
  /// The lease as last seen (nullptr: not found, or nothing seen yet).
  const ObservedLease* lease() const { return lease_ ? &*lease_ : nullptr; }
  /// The holder as last seen ("" when free, missing or unknown).
  std::string_view holder() const;
  /// When the current record (or its absence) was first seen.
  LocalTime changed_at() const { return changed_at_; }

  /// Held by someone whose record has not changed for its leaseDurationSeconds.
  bool expired(LocalTime now) const;
  /// Held by someone, and not expired.
  bool held(LocalTime now) const;
  /// Since when nobody holds it: missing, holder empty (since first seen so), or
  /// expired (since the moment it expired). nullopt while held, or when nothing is known.
  std::optional<LocalTime> free_since(LocalTime now) const;

 private:
  LocalTime expires_at() const;

  bool known_ = false;
  std::optional<ObservedLease> lease_;
  LocalTime changed_at_{};
};

}  // namespace kueuepp::kube::leader
