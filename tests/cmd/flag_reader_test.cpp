#include "cmd/flag_reader.hpp"

#include <gtest/gtest.h>

#include <array>

namespace kueuepp::cmd {
namespace {

TEST(FlagReader, ReadsEachFlagAndTheValuesOfThoseThatTakeOne) {
  const std::array<std::string_view, 5> args{"--dry-run", "--kubeconfig", "kc", "-n", "ns"};
  FlagReader flags(args);
  std::string kubeconfig, ns;
  EXPECT_EQ(flags.next(), "--dry-run");
  EXPECT_EQ(flags.next(), "--kubeconfig");
  EXPECT_TRUE(flags.value(kubeconfig));
  EXPECT_EQ(kubeconfig, "kc");
  EXPECT_EQ(flags.next(), "-n");
  EXPECT_TRUE(flags.value(ns));
  EXPECT_EQ(ns, "ns");
  EXPECT_EQ(flags.next(), std::nullopt);
}

TEST(FlagReader, AValueIsNeverTakenForAFlag) {
  // "--context" is --kubeconfig's value here, as a shell would pass it: never a flag.
  const std::array<std::string_view, 3> args{"--kubeconfig", "--context", "x"};
  FlagReader flags(args);
  std::string kubeconfig;
  flags.next();
  EXPECT_TRUE(flags.value(kubeconfig));
  EXPECT_EQ(kubeconfig, "--context");
  EXPECT_EQ(flags.next(), "x");
}

TEST(FlagReader, AFlagWithoutItsValueSaysWhatItNeeds) {
  const std::array<std::string_view, 1> args{"--timeout"};
  FlagReader flags(args);
  std::string timeout = "300";
  EXPECT_EQ(flags.next(), "--timeout");
  auto missing = flags.value(timeout, "a number of seconds");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "--timeout needs a number of seconds");
  EXPECT_EQ(timeout, "300");  // left as it was
  EXPECT_EQ(flags.next(), std::nullopt);
  EXPECT_EQ(flags.value(timeout).error().message, "--timeout needs a value");
}

TEST(FlagReader, NoArgumentsNoFlags) {
  FlagReader flags(Args{});
  EXPECT_EQ(flags.next(), std::nullopt);
}

}  // namespace
}  // namespace kueuepp::cmd
