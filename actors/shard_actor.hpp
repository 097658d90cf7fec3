#pragma once

// The shard actor: leader election and shard assignment for this replica (horizontal
// sharding by cohort, see messages/shard_protocol.hpp).
//
// Every retry period (jittered up to 1.2x) it lists the Leases labelled
// kueuepp.x-k8s.io/lease-role in its namespace, feeds what it read to one election per
// Lease (kube/leader/lease_election.hpp): its own member Lease `<prefix>-member-<identity>`
// and every shard's `<prefix>-shard-<i>`, and decides with kube/leader/shard_assignment.hpp
// which shards it should hold (an even spread over the live members that moves as few
// shards as possible). It sends ShardOwnership to every sink whenever the held set
// changes and after every renewal (valid_until moves), with an increasing version:
//   - a shard it gives up leaves the held set *before* the release is written;
//   - a shard whose renew deadline passes leaves it when a timer says so, whatever any
//     request in flight may still answer.
// ShardStop (or an exit message) sends an empty ownership, releases the held shard Leases
// and deletes the member Lease (bounded by stop_timeout), so that after SIGTERM the other
// replicas take over within a retry period instead of a lease duration.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "messages/shard_actor_handle.hpp"

namespace caf {
class actor_system;
}
namespace kueuepp::kube::client {
class Client;
}
namespace kueuepp::kube::leader {
class LeaseApi;
}

namespace kueuepp::actors {

struct ShardOptions {
  /// Where the Leases live.
  std::string ns = "kueuepp-system";
  /// This replica in the Leases: `<pod name>_<random hex>` (kube/leader/lease_names.hpp
  /// make_identity), unique per process. Required.
  std::string identity;
  std::uint32_t shard_count = 1;
  /// Leases are `<prefix>-shard-<i>` and `<prefix>-member-<identity>` (sanitized).
  std::string prefix = "kueuepp";
  /// client-go's durations; LeaseDuration > RenewDeadline > RetryPeriod * 1.2.
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  /// Each Lease request is one attempt bounded by this (0: half the renew deadline).
  std::chrono::milliseconds request_timeout{0};
  /// How long a stop waits for its releases (0: the renew deadline).
  std::chrono::milliseconds stop_timeout{0};
  /// Drained (DrainWrites) between announcing that a shard is given up and releasing its
  /// Lease on a hand-over, so no write of this replica lands after the next holder took
  /// over (bounded by half the renew deadline). Null: released at once.
  messages::writer_actor writes;
  /// The local monotonic clock (tests inject one); valid_until is on it.
  std::function<std::chrono::steady_clock::time_point()> clock;
  /// Told, from the actor, why its Lease writes cannot succeed until an operator acts
  /// (the Leases' namespace does not exist, the controller may not write Leases there),
  /// and told "" once they succeed again: readiness reports it.
  std::function<void(const std::string& why)> on_blocked;
};

/// Validates the options and spawns the actor; it starts electing at once. `client` must
/// outlive the actor: stop it (ShardStop, await the answer) before shutting the client
/// down. A separate Client (its own rate limiter) keeps renewals from queueing behind
/// the controller's writes. The sinks get an empty ownership (version 1) right away.
Expected<messages::shard_actor> spawn_shard_actor(caf::actor_system& system, kube::client::Client& client,
                                                  ShardOptions options, std::vector<messages::ownership_sink> sinks,
                                                  messages::introspection_actor introspection);

/// The same over any Lease API (protocol tests use an in-memory one); `leases` is
/// shared with the actor's pending requests.
Expected<messages::shard_actor> spawn_shard_actor(caf::actor_system& system,
                                                  std::shared_ptr<kube::leader::LeaseApi> leases, ShardOptions options,
                                                  std::vector<messages::ownership_sink> sinks,
                                                  messages::introspection_actor introspection);

}  // namespace kueuepp::actors
