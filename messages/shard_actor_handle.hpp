#pragma once

// The shard actor's typed interface (see actors/shard_actor.hpp): it runs leader
// election for this replica's membership Lease and every shard's Lease, and tells its
// sinks which shards this replica holds (ShardOwnership, messages/shard_protocol.hpp).
// Include from actor implementation files and the controller only: it pulls in CAF's
// typed-actor headers (through actor_handles.hpp, which also whitelists ShardOwnership,
// IntrospectActor and ActorInfo).

#include <cstdint>

#include "messages/actor_handles.hpp"

namespace kueuepp::messages {

/// Graceful stop (e.g. on SIGTERM, before the actor system goes down): the shard actor
/// tells its sinks it holds nothing, releases the shard Leases it holds and deletes its
/// member Lease so the other replicas take over at once instead of after a lease
/// duration, then answers and exits. Bounded in time (ShardOptions::stop_timeout).
struct ShardStop {};

struct ShardStopped {
  /// Shard Leases given up (holder cleared on the server).
  std::uint32_t released = 0;
  /// Releases (or the member Lease's deletion) that failed or did not finish in time:
  /// those Leases expire on their own after a lease duration.
  std::uint32_t failed = 0;
  bool member_deleted = false;
};

/// Whatever acts on shards (snapshot actor, job actor, writer): takes ShardOwnership.
using ownership_sink = caf::typed_actor<caf::reacts_to<ShardOwnership>>;

using shard_actor =
    caf::typed_actor<caf::replies_to<ShardStop>::with<ShardStopped>, caf::replies_to<IntrospectActor>::with<ActorInfo>>;

}  // namespace kueuepp::messages

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ShardStop)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::ShardStopped)
