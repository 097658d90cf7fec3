#pragma once

// A ClusterQueue's counts and usage over the last hour, for the web view's charts: a
// small ring of samples kept by the ClusterQueue actor (which owns the numbers) and fed
// by its snapshots. Pure: the time of each sample is given.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "core/model/time.hpp"

namespace kueuepp::actors {

struct QueueSample {
  core::Time at{};
  std::int64_t pending = 0;
  std::int64_t reserving = 0;
  std::int64_t admitted = 0;
  std::map<std::string, std::int64_t> used_milli;  ///< per resource, summed over flavors
};

class QueueHistory {
 public:
  /// One sample per `interval` (the latest one of the interval wins), `span` kept.
  explicit QueueHistory(std::chrono::seconds interval = std::chrono::seconds(10),
                        std::chrono::seconds span = std::chrono::hours(1));

  /// Records `sample`: it replaces the last one when both fall in the same interval, and
  /// samples older than the span before it are dropped. A sample older than the last one
  /// (a clock that went back) replaces the last one too, so the ring stays ordered.
  void record(QueueSample sample);

  const std::deque<QueueSample>& samples() const { return samples_; }
  std::size_t capacity() const;

 private:
  std::int64_t bucket_of(core::Time t) const;

  std::chrono::seconds interval_;
  std::chrono::seconds span_;
  std::deque<QueueSample> samples_;
};

}  // namespace kueuepp::actors
