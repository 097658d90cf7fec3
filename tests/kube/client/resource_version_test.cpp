#include "kube/client/resource_version.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::client {
namespace {

TEST(ResourceVersion, IntegersAreOrderedAsNumbersNotAsText) {
  EXPECT_EQ(compare_resource_versions("9", "10"), std::strong_ordering::less);
  EXPECT_EQ(compare_resource_versions("10", "10"), std::strong_ordering::equal);
  EXPECT_EQ(compare_resource_versions("18446744073709551615", "2"), std::strong_ordering::greater);
  EXPECT_TRUE(older_resource_version("9", "10"));
  EXPECT_FALSE(older_resource_version("10", "10"));
  EXPECT_FALSE(older_resource_version("11", "10"));
}

TEST(ResourceVersion, NoOrderIsClaimedForWhatIsNotAnInteger) {
  EXPECT_FALSE(compare_resource_versions("", "1").has_value());
  EXPECT_FALSE(compare_resource_versions("1", "abc").has_value());
  EXPECT_FALSE(compare_resource_versions("1a", "1").has_value());
  EXPECT_FALSE(compare_resource_versions("-1", "1").has_value());
  EXPECT_FALSE(compare_resource_versions("18446744073709551616", "1").has_value()) << "beyond 64 bits";
  EXPECT_FALSE(older_resource_version("abc", "1"));
}

}  // namespace
}  // namespace kueuepp::kube::client
