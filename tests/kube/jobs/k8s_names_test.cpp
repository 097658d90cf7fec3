#include "kube/jobs/k8s_names.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kueuepp::kube::jobs {
namespace {

TEST(K8sNames, Dns1123Subdomain) {
  EXPECT_TRUE(is_dns1123_subdomain("user-queue"));
  EXPECT_TRUE(is_dns1123_subdomain("a.b-c.d1"));
  EXPECT_TRUE(is_dns1123_subdomain("0"));
  EXPECT_FALSE(is_dns1123_subdomain(""));
  EXPECT_FALSE(is_dns1123_subdomain("User"));
  EXPECT_FALSE(is_dns1123_subdomain("-a"));
  EXPECT_FALSE(is_dns1123_subdomain("a-"));
  EXPECT_FALSE(is_dns1123_subdomain("a..b"));
  EXPECT_FALSE(is_dns1123_subdomain("a_b"));
  EXPECT_TRUE(is_dns1123_subdomain(std::string(253, 'a')));
  EXPECT_FALSE(is_dns1123_subdomain(std::string(254, 'a')));
}

TEST(K8sNames, Dns1123Label) {
  EXPECT_TRUE(is_dns1123_label("cluster-queue"));
  EXPECT_FALSE(is_dns1123_label("a.b"));
  EXPECT_TRUE(is_dns1123_label(std::string(63, 'a')));
  EXPECT_FALSE(is_dns1123_label(std::string(64, 'a')));
  EXPECT_FALSE(is_dns1123_label(""));
}

TEST(K8sNames, LabelValue) {
  EXPECT_TRUE(is_valid_label_value(""));
  EXPECT_TRUE(is_valid_label_value("0b1f4c2e-7d7a-4b0c-9a55-6c5d0a4a1b2c"));
  EXPECT_TRUE(is_valid_label_value("A_b.c-D"));
  EXPECT_FALSE(is_valid_label_value("_a"));
  EXPECT_FALSE(is_valid_label_value("a/b"));
  EXPECT_FALSE(is_valid_label_value(std::string(64, 'a')));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
