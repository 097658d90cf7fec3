#include "kube/client/token_source.hpp"

#include <gtest/gtest.h>

#include "tests/kube/client/temp_dir.hpp"

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  SteadyClock fn() {
    return [this] { return now; };
  }
};

TEST(TokenSource, AStaticTokenIsReturnedAsIs) {
  TokenSource source("static", "");
  EXPECT_EQ(source.token(), "static");
  EXPECT_FALSE(source.refreshable());
}

TEST(TokenSource, ReReadsTheFileOnlyAfterTheRefreshPeriod) {
  TempDir dir;
  const std::string path = dir.write("token", "one\n");
  FakeClock clock;
  TokenSource source("", path, 60s, clock.fn());
  EXPECT_TRUE(source.refreshable());
  EXPECT_EQ(source.token(), "one");
  dir.write("token", "two");
  clock.now += 59s;
  EXPECT_EQ(source.token(), "one");  // cached within the period
  clock.now += 1s;
  EXPECT_EQ(source.token(), "two");  // rotated token picked up
}

TEST(TokenSource, InvalidateForcesARead) {
  TempDir dir;
  const std::string path = dir.write("token", "one");
  FakeClock clock;
  TokenSource source("", path, 60s, clock.fn());
  EXPECT_EQ(source.token(), "one");
  dir.write("token", "two");
  source.invalidate();  // after a 401
  EXPECT_EQ(source.token(), "two");
}

TEST(TokenSource, KeepsTheLastGoodTokenWhenTheFileIsUnreadableOrEmpty) {
  TempDir dir;
  const std::string path = dir.write("token", "good");
  FakeClock clock;
  TokenSource source("initial", path, 1s, clock.fn());
  EXPECT_EQ(source.token(), "good");
  dir.write("token", "");
  clock.now += 2s;
  EXPECT_EQ(source.token(), "good");
  std::filesystem::remove(path);
  clock.now += 2s;
  EXPECT_EQ(source.token(), "good");
}

TEST(TokenSource, FallsBackToTheStaticTokenUntilTheFileIsReadable) {
  FakeClock clock;
  TokenSource source("initial", "/nonexistent/token", 1s, clock.fn());
  EXPECT_EQ(source.token(), "initial");
}

}  // namespace
}  // namespace kueuepp::kube::client
