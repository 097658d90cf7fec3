// client-go's checks on the durations, and the leaseDurationSeconds written.

#include <gtest/gtest.h>

#include "kube/leader/election_timing.hpp"

namespace kueuepp::kube::leader {
namespace {

using std::chrono::milliseconds;

ElectionTiming timing(int lease, int renew, int retry) {
  return ElectionTiming{milliseconds(lease), milliseconds(renew), milliseconds(retry)};
}

TEST(ElectionTiming, DefaultsAreClientGos) {
  ElectionTiming t;
  EXPECT_EQ(t.lease_duration, milliseconds(15000));
  EXPECT_EQ(t.renew_deadline, milliseconds(10000));
  EXPECT_EQ(t.retry_period, milliseconds(2000));
  EXPECT_TRUE(validate(t));
}

TEST(ElectionTiming, Validation) {
  struct Row {
    const char* name;
    ElectionTiming timing;
    bool valid;
  };
  const Row rows[] = {
      {"short test durations", timing(2000, 1500, 250), true},
      {"lease not longer than renew deadline", timing(10000, 10000, 2000), false},
      {"renew deadline just above 1.2 retry periods", timing(15000, 2401, 2000), true},
      {"renew deadline at 1.2 retry periods", timing(15000, 2400, 2000), false},
      {"zero retry period", timing(15000, 10000, 0), false},
      {"negative lease", timing(-1, 10000, 2000), false},
  };
  for (const Row& row : rows) {
    auto status = validate(row.timing);
    EXPECT_EQ(static_cast<bool>(status), row.valid) << row.name;
    if (!status) {
      EXPECT_NE(status.error().message.find("leader election"), std::string::npos) << row.name;
    }
  }
}

TEST(ElectionTiming, LeaseDurationSecondsRoundUp) {
  EXPECT_EQ(lease_duration_seconds(timing(15000, 10000, 2000)), 15);
  EXPECT_EQ(lease_duration_seconds(timing(1500, 1000, 250)), 2);
  EXPECT_EQ(lease_duration_seconds(timing(300, 200, 100)), 1);
}

}  // namespace
}  // namespace kueuepp::kube::leader
