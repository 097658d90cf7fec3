#pragma once

// What to do with one Event, as client-go's EventCorrelator decides it (pure; the
// recorder actor owns one):
// - a spam filter per involved object: a token bucket (burst 25, one token per 5 minutes
//   by default), so that a flapping object cannot flood the API server with Events;
// - aggregation: the same object, type, reason and message seen again within the window
//   bumps the existing Event's count and lastTimestamp instead of creating another.
// Memory stays bounded: once `max_tracked` is exceeded, entries older than the window go,
// and if that is not enough the least recently used ones (client-go keeps each of its two
// caches in an LRU of 4096 entries: a forgotten object starts with a full bucket, a
// forgotten repeat creates a new Event).

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "core/model/time.hpp"
#include "messages/event_protocol.hpp"

namespace kueuepp::actors {

struct EventCorrelatorOptions {
  double burst = 25;
  std::chrono::seconds refill_interval{300};
  std::chrono::seconds aggregate_window{600};
  std::size_t max_tracked = 4096;
};

struct EventAction {
  enum class Kind { Create, Bump, Drop } kind = Kind::Drop;
  std::string event_name;  ///< the Event object's name (Create and Bump)
  std::int32_t count = 1;
  core::Time first{};
  core::Time last{};
};

class EventCorrelator {
 public:
  explicit EventCorrelator(EventCorrelatorOptions options = {}) : options_(options) {}

  EventAction observe(const messages::RecordEvent& event, core::Time now);

  std::size_t tracked() const { return buckets_.size() + seen_.size(); }
  std::uint64_t dropped() const { return dropped_; }

 private:
  struct Bucket {
    double tokens = 0;
    core::Time refreshed{};
    std::uint64_t used = 0;  ///< use_ when last used (LRU order)
  };
  struct Seen {
    std::string event_name;
    std::int32_t count = 0;
    core::Time first{};
    core::Time last{};
    std::uint64_t used = 0;
  };
  bool take_token(const std::string& object_key, core::Time now);
  void prune(core::Time now);
  /// Drops the least recently used entries of `map` down to `keep`.
  template <typename Map>
  static void evict_least_recently_used(Map& map, std::size_t keep);

  EventCorrelatorOptions options_;
  std::map<std::string, Bucket> buckets_;
  std::map<std::string, Seen> seen_;
  std::uint64_t dropped_ = 0;
  std::uint64_t use_ = 0;  ///< a counter stamped on entries as they are used
  /// When the last full prune ran: over the limit with nothing old enough to go, every
  /// event would otherwise scan every entry.
  core::Time last_prune_{};
};

}  // namespace kueuepp::actors
