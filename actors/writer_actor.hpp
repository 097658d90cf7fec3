#pragma once

// The writer actor owns the controller's API write budget. Urgent requests (admissions,
// evictions, job starts and stops) go ahead of the rest, but not of all of it: a
// ClusterQueue or LocalQueue status write that waited `max_status_delay` is let through
// now and then (see WriterOptions), so queue status stays within seconds of the truth
// while admissions use the whole QPS budget. The normal writes wait in one lane per kind
// of object, served round-robin so that no kind starves another, and coalescable status
// rewrites keep only the newest per object. One object's rewrites are never in flight
// two at a time: a later one waits for the earlier one's answer, so they land in the
// order they were asked for. Events are the one kind that may be dropped: beyond
// `max_queued_events` waiting, the oldest is answered "Dropped" (client-go's event
// broadcaster drops too when its queue is full). At most `max_in_flight` writes are
// outstanding; the client's rate limiter (QPS/burst) paces them further. Every request
// gets exactly one WriteOutcome.

#include <chrono>
#include <cstddef>
#include <functional>

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
  /// A ClusterQueue or LocalQueue status write that has waited this long goes out
  /// before the next urgent write, at most once per `urgent_streak` urgent writes
  /// (>= 1): under a saturated budget queue status lags by about this much while taking
  /// at most 1/(urgent_streak+1) of the writes. With many queues some status is always
  /// overdue, so this share is what they take while admissions wait: a tenth.
  std::chrono::milliseconds max_status_delay{5000};
  std::size_t urgent_streak = 9;
  /// The writer's clock (tests); steady_clock when empty.
  std::function<std::chrono::steady_clock::time_point()> clock;
  /// Events waiting beyond this many: the oldest is dropped.
  std::size_t max_queued_events = 1000;
  /// Of those, at most this many normal (not urgent) writes. The client's rate limiter
  /// hands out tokens in the order writes reach it, so with the budget spent every write
  /// in flight holds a place in that line: an admission sent behind sixteen pending
  /// explanations waits sixteen tokens (53 ms at QPS 300) while its quota is held and
  /// unused. A few normal writes in flight keep the budget in use and an urgent write's
  /// wait short. 0: no bound of its own (max_in_flight).
  std::size_t max_normal_in_flight = 0;
  /// Normal writes go out as the client's background writes (WriteOptions::background):
  /// they take only the budget urgent writes leave, so an admission never waits for a
  /// token behind an explanation sent before it. A queue status sent because it is
  /// overdue (max_status_delay) keeps its place in line: in the background it would
  /// wait for the urgent writes to stop.
  bool normal_writes_in_background = false;
};

messages::writer_actor spawn_writer(caf::actor_system& system, WriteTransport transport, WriterOptions options = {});

}  // namespace kueuepp::actors
