#pragma once

// Answers remembered for a time to live, the shape both review caches of the delegating
// authenticator and authorizer share: an entry is good while its expiry lies ahead of the
// clock (at the expiry itself it is gone), an expired entry goes when its key is asked
// again, and the cache starts over when it holds `max_entries`, so that a stream of
// distinct keys costs bounded memory without a sweeper. Errors are never remembered, so
// that a broken API server is asked again on the next request. Safe to use from any
// thread: the reviews answer on whichever thread their client runs.

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/expected.hpp"

namespace kueuepp::kube::auth {

template <typename V>
class ExpiringCache {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  static constexpr std::size_t kDefaultMaxEntries = 4096;

  /// An empty `clock` reads the steady clock; tests pass their own.
  explicit ExpiringCache(std::chrono::milliseconds ttl, Clock clock = {},
                         std::size_t max_entries = kDefaultMaxEntries)
      : ttl_(ttl), clock_(std::move(clock)), max_entries_(max_entries) {}

  /// The value remembered for `key`, if it has not expired.
  std::optional<V> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    if (it->second.expires > now()) return it->second.value;
    entries_.erase(it);
    return std::nullopt;
  }

  /// Remembers an answer for the time to live from now; an error is not remembered.
  void remember(const std::string& key, const Expected<V>& answer) {
    if (!answer) return;
    std::lock_guard lock(mutex_);
    if (entries_.size() >= max_entries_) entries_.clear();
    entries_.insert_or_assign(key, Entry{*answer, now() + ttl_});
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    V value;
    std::chrono::steady_clock::time_point expires;
  };

  std::chrono::steady_clock::time_point now() const { return clock_ ? clock_() : std::chrono::steady_clock::now(); }

  std::chrono::milliseconds ttl_;
  Clock clock_;
  std::size_t max_entries_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace kueuepp::kube::auth
