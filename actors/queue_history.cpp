#include "actors/queue_history.hpp"

namespace kueuepp::actors {

QueueHistory::QueueHistory(std::chrono::seconds interval, std::chrono::seconds span)
    : interval_(interval.count() > 0 ? interval : std::chrono::seconds(1)), span_(span) {}

std::size_t QueueHistory::capacity() const { return static_cast<std::size_t>(span_ / interval_) + 1; }

std::int64_t QueueHistory::bucket_of(core::Time t) const {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  auto width = std::chrono::duration_cast<std::chrono::microseconds>(interval_).count();
  return us >= 0 ? us / width : (us - width + 1) / width;
}

void QueueHistory::record(QueueSample sample) {
  if (!samples_.empty() && bucket_of(sample.at) <= bucket_of(samples_.back().at)) {
    if (sample.at < samples_.back().at) sample.at = samples_.back().at;
    samples_.back() = std::move(sample);
  } else {
    samples_.push_back(std::move(sample));
  }
  const core::Time oldest = samples_.back().at - span_;
  while (samples_.size() > 1 && samples_.front().at < oldest) samples_.pop_front();
  while (samples_.size() > capacity()) samples_.pop_front();
}

}  // namespace kueuepp::actors
