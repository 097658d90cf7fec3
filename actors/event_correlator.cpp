#include "actors/event_correlator.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace kueuepp::actors {

namespace {

std::string object_key(const messages::RecordEvent& e) {
  std::string key(messages::to_string(e.kind));
  key += '/';
  key += e.ns;
  key += '/';
  key += e.name;
  key += '/';
  key += e.uid;
  return key;
}

/// kubectl and client-go name Events <object>.<hex nanoseconds>, unique per object.
std::string event_name(const messages::RecordEvent& e, core::Time now) {
  char suffix[24];
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(nanos));
  return e.name + suffix;
}

}  // namespace

bool EventCorrelator::take_token(const std::string& key, core::Time now) {
  auto [it, inserted] = buckets_.try_emplace(key);
  Bucket& b = it->second;
  if (inserted) {
    b.tokens = options_.burst;
  } else {
    auto elapsed = std::chrono::duration<double>(now - b.refreshed).count();
    double refill = elapsed / static_cast<double>(options_.refill_interval.count());
    b.tokens = std::min(options_.burst, b.tokens + std::max(0.0, refill));
  }
  b.refreshed = now;
  b.used = ++use_;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

void EventCorrelator::prune(core::Time now) {
  if (tracked() <= options_.max_tracked) return;
  // At most ten full scans by age per aggregation window; the maps may overshoot
  // meanwhile, up to the LRU bound below.
  auto spacing = std::chrono::duration_cast<core::Time::duration>(options_.aggregate_window) / 10;
  if (last_prune_ == core::Time{} || now >= last_prune_ + spacing) {
    last_prune_ = now;
    auto horizon = now - options_.aggregate_window;
    std::erase_if(seen_, [&](const auto& kv) { return kv.second.last < horizon; });
    // A bucket that had time to refill completely carries no information.
    auto full_after = std::chrono::duration_cast<core::Time::duration>(options_.refill_interval * options_.burst);
    std::erase_if(buckets_, [&](const auto& kv) { return kv.second.refreshed + full_after < now; });
  }
  // Still over (Events on many objects within the window): the least recently used go,
  // each cache down to three quarters of its half so that this runs rarely.
  const std::size_t share = std::max<std::size_t>(1, options_.max_tracked / 2);
  if (buckets_.size() > share) evict_least_recently_used(buckets_, share * 3 / 4);
  if (seen_.size() > share) evict_least_recently_used(seen_, share * 3 / 4);
}

template <typename Map>
void EventCorrelator::evict_least_recently_used(Map& map, std::size_t keep) {
  std::vector<std::uint64_t> uses;
  uses.reserve(map.size());
  for (const auto& kv : map) uses.push_back(kv.second.used);
  const std::size_t drop = map.size() - std::min(keep, map.size());
  if (drop == 0) return;
  std::nth_element(uses.begin(), uses.begin() + static_cast<std::ptrdiff_t>(drop - 1), uses.end());
  const std::uint64_t newest_dropped = uses[drop - 1];
  std::erase_if(map, [&](const auto& kv) { return kv.second.used <= newest_dropped; });
}

EventAction EventCorrelator::observe(const messages::RecordEvent& event, core::Time now) {
  EventAction action;
  std::string object = object_key(event);
  if (!take_token(object, now)) {
    ++dropped_;
    return action;  // Drop
  }
  std::string key = object;
  key += event.warning ? "/Warning/" : "/Normal/";
  key += event.reason;
  key += '/';
  key += event.message;
  auto it = seen_.find(key);
  if (it != seen_.end() && now - it->second.last <= options_.aggregate_window) {
    Seen& s = it->second;
    ++s.count;
    s.last = now;
    s.used = ++use_;
    action = EventAction{EventAction::Kind::Bump, s.event_name, s.count, s.first, s.last};
    return action;
  }
  Seen s{event_name(event, now), 1, now, now, ++use_};
  action = EventAction{EventAction::Kind::Create, s.event_name, 1, now, now};
  seen_[key] = std::move(s);
  prune(now);
  return action;
}

}  // namespace kueuepp::actors
