// Request targets as kube-apiserver reads them: percent-decoding of the path and the
// query ('+' is a space only in the query), segments split before decoding.

#include <gtest/gtest.h>

#include "kube/server/api/request_info.hpp"

namespace kueuepp::kube::server {
namespace {

TEST(PercentDecode, PlainTextIsUnchanged) {
  EXPECT_EQ(percent_decode("apis/kueue.x-k8s.io/v1beta2", false), "apis/kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(percent_decode("", true), "");
}

TEST(PercentDecode, PlusIsASpaceOnlyInQueries) {
  EXPECT_EQ(percent_decode("a+b", true), "a b");
  EXPECT_EQ(percent_decode("a+b", false), "a+b");
  EXPECT_EQ(percent_decode("a+b%2B", true), "a b+");
}

TEST(PercentDecode, EscapesAreDecodedAndMalformedOnesRejected) {
  EXPECT_EQ(percent_decode("a%2Fb%3d", false), "a/b=");
  EXPECT_EQ(percent_decode("a%2", false), std::nullopt);
  EXPECT_EQ(percent_decode("%zz", false), std::nullopt);
}

TEST(ParseTarget, QueryPlusIsASpacePathPlusIsNot) {
  auto t = parse_target("/api/v1/namespaces/a+b/configmaps?labelSelector=x+in+(a)&dryRun=All");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->first.ns, "a+b");
  EXPECT_EQ(t->second.get_or("labelSelector", ""), "x in (a)");
  EXPECT_EQ(t->second.get_or("dryRun", ""), "All");
}

TEST(ParseTarget, EncodedSlashStaysInItsSegment) {
  auto t = parse_target("/api/v1/namespaces/team/configmaps/a%2Fb");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->first.name, "a/b");
  EXPECT_EQ(t->first.path, "/api/v1/namespaces/team/configmaps/a/b");
}

}  // namespace
}  // namespace kueuepp::kube::server
