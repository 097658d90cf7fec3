#include "kube/leader/election_timing.hpp"

#include <string>

namespace kueuepp::kube::leader {

namespace {

std::string ms(std::chrono::milliseconds d) { return std::to_string(d.count()) + "ms"; }

}  // namespace

Status validate(const ElectionTiming& t) {
  using std::chrono::milliseconds;
  if (t.lease_duration <= milliseconds::zero() || t.renew_deadline <= milliseconds::zero() ||
      t.retry_period <= milliseconds::zero()) {
    return fail("leader election: leaseDuration, renewDeadline and retryPeriod must be positive");
  }
  if (t.lease_duration <= t.renew_deadline) {
    return fail("leader election: leaseDuration (" + ms(t.lease_duration) + ") must be greater than renewDeadline (" +
                ms(t.renew_deadline) + ")");
  }
  if (static_cast<double>(t.renew_deadline.count()) <= kJitterFactor * static_cast<double>(t.retry_period.count())) {
    return fail("leader election: renewDeadline (" + ms(t.renew_deadline) + ") must be greater than retryPeriod (" +
                ms(t.retry_period) + ") * 1.2");
  }
  return {};
}

std::int64_t lease_duration_seconds(const ElectionTiming& t) {
  const auto seconds = (t.lease_duration.count() + 999) / 1000;
  return seconds < 1 ? 1 : seconds;
}

}  // namespace kueuepp::kube::leader
