#pragma once

// The durations of leader election (client-go's LeaderElectionConfig) and the clock
// readings the pure election logic receives instead of reading clocks itself.

#include <chrono>
#include <cstdint>

#include "core/expected.hpp"
#include "kube/client/micro_time.hpp"

namespace kueuepp::kube::leader {

/// Local monotonic time: every expiry and deadline is measured on it, never on the
/// timestamps written in a Lease (another host's wall clock may be off by minutes).
using LocalTime = std::chrono::steady_clock::time_point;

/// One reading of both clocks at the same moment.
struct Instant {
  LocalTime local;
  /// Only stamped into renewTime/acquireTime, for humans and other tools.
  client::TimePoint wall;
};

struct ElectionTiming {
  /// How long others wait, after last seeing the record change, before taking the lease.
  std::chrono::milliseconds lease_duration{15000};
  /// The holder stops acting when no renewal succeeded for this long (measured from
  /// when the successful request was sent, so it is always shorter than what anybody
  /// else waits).
  std::chrono::milliseconds renew_deadline{10000};
  /// Time between attempts (jittered up to kJitterFactor times longer).
  std::chrono::milliseconds retry_period{2000};
};

/// client-go's JitterFactor: the wait between attempts is retry_period..1.2 * retry_period,
/// so at least one attempt fits in every renew deadline.
inline constexpr double kJitterFactor = 1.2;

/// LeaseDuration > RenewDeadline > RetryPeriod * 1.2, all positive (client-go's checks).
Status validate(const ElectionTiming& timing);

/// leaseDurationSeconds to write: the lease duration rounded *up* to whole seconds (at
/// least 1), so others never wait less than this process assumes.
std::int64_t lease_duration_seconds(const ElectionTiming& timing);

}  // namespace kueuepp::kube::leader
