#pragma once

// Shard actor -> the actors that act on cohort trees (snapshot actor, job actor,
// writer): which shards this replica may act on right now.
//
// Every cohort tree (a root cohort with its subtree, or a ClusterQueue without a
// cohort) belongs to exactly one of `shard_count` shards (shard_of_root below). A
// replica acts (admits, preempts, evicts, writes status, reconciles Jobs) only on the
// trees of the shards it holds; it still watches and explains everything.
//
// The shard actor sends a new ShardOwnership whenever the held set changes, and it sends
// the shrunken set *before* it releases a lease or once a renewal deadline passes, so a
// replica has stopped acting on a shard before another can acquire it.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace kueuepp::messages {

struct ShardOwnership {
  std::uint32_t shard_count = 1;
  std::set<std::uint32_t> held;
  /// Increases with every message (receivers ignore an older one arriving late).
  std::uint64_t version = 0;
  /// The held shards are held until then at least (the earliest last successful renewal
  /// plus the renew deadline); sent again after every renewal. The writer checks it at
  /// every write, so a process that was paused (SIGSTOP, a long GC-like stall, a frozen
  /// VM) and wakes up after losing its Leases writes nothing, even before the shard
  /// actor's own timer tells everyone.
  std::chrono::steady_clock::time_point valid_until = std::chrono::steady_clock::time_point::max();

  bool holds(std::uint32_t shard) const { return held.count(shard) != 0; }
  /// Same shards held (a renewal changes only version and valid_until).
  bool same_shards(const ShardOwnership& o) const { return shard_count == o.shard_count && held == o.held; }
};

/// Snapshot actor -> job actor: the shard of every LocalQueue whose ClusterQueue exists
/// (keyed `namespace/name`), and what this replica holds. A Job is handled by the holder
/// of its LocalQueue's shard; Jobs whose LocalQueue or ClusterQueue does not exist (yet)
/// by the holder of shard 0, which only creates their Workloads and keeps them suspended.
struct JobShards {
  std::shared_ptr<const std::map<std::string, std::uint32_t, std::less<>>> local_queue_shards;
  ShardOwnership ownership;

  std::uint32_t shard_of(const std::string& local_queue_key) const {
    if (!local_queue_shards) return 0;
    auto it = local_queue_shards->find(local_queue_key);
    return it == local_queue_shards->end() ? 0u : it->second;
  }
};

/// The shard of a cohort tree, from the name of its root (the root cohort's name, or the
/// ClusterQueue's name when it has no cohort): 64-bit FNV-1a of the name, modulo the
/// shard count. Stable across versions and replicas: never change it.
constexpr std::uint32_t shard_of_root(std::string_view root_name, std::uint32_t shard_count) {
  std::uint64_t hash = 14695981039346656037ull;
  for (char c : root_name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return shard_count <= 1 ? 0u : static_cast<std::uint32_t>(hash % shard_count);
}

}  // namespace kueuepp::messages
