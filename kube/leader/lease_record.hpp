#pragma once

// The part of a coordination.k8s.io/v1 Lease that leader election reads and writes
// (client-go's LeaderElectionRecord), decoded from and encoded into the Lease object.
// Encoding edits the object in place, so fields this code does not know (labels of
// other tools, the newer spec.strategy / spec.preferredHolder, managedFields) survive
// every update.

#include <cstdint>
#include <optional>
#include <string>

#include "kube/client/micro_time.hpp"
#include "kube/client/object.hpp"

namespace kueuepp::kube::leader {

struct LeaseRecord {
  /// Empty: nobody holds the lease (released, or never held).
  std::string holder_identity;
  std::int64_t lease_duration_seconds = 0;
  /// Wall-clock stamps for humans and other tools. Election decisions never read them:
  /// only locally observed times are trusted (clocks of different hosts disagree).
  std::optional<client::TimePoint> acquire_time;
  std::optional<client::TimePoint> renew_time;
  std::int64_t lease_transitions = 0;

  bool operator==(const LeaseRecord&) const = default;
};

/// A Lease as the server last answered it: its record and the resourceVersion that the
/// next update sends as its precondition (a race then loses with 409 Conflict).
struct ObservedLease {
  LeaseRecord record;
  std::string resource_version;
};

/// Missing fields decode as empty / 0 / nullopt; unreadable times as nullopt.
LeaseRecord decode_lease_record(const client::Object& lease);
ObservedLease decode_observed_lease(const client::Object& lease);

/// Writes the record into `lease`'s spec, keeping every other field. Absent times are
/// removed; the holder is written even when empty (client-go writes `""` on release).
void encode_lease_record(const LeaseRecord& record, client::Object& lease);

}  // namespace kueuepp::kube::leader
