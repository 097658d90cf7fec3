#pragma once

// The writer actor owns the controller's API write budget. Urgent requests (admissions,
// evictions, job starts and stops) go ahead of everything; the rest wait in one lane per
// kind of object, served round-robin so that no kind starves another, and coalescable
// status rewrites keep only the newest per object. At most `max_in_flight` writes
// are outstanding; the client's rate limiter (QPS/burst) paces them further. Every
// request gets exactly one WriteOutcome.

#include <cstddef>

#include "actors/write_transport.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

struct WriterOptions {
  std::size_t max_in_flight = 16;
  /// With sharding: no tree-scoped write goes out before the shard actor says which
  /// shards this replica holds.
  bool sharded = false;
};

messages::writer_actor spawn_writer(caf::actor_system& system, WriteTransport transport, WriterOptions options = {});

}  // namespace kueuepp::actors
