// Request targets as kube-apiserver reads them: percent-decoding of the path and the
// query ('+' is a space only in the query), segments split before decoding.

#include <gtest/gtest.h>

#include "kube/apiserver/server/api/request_info.hpp"

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

namespace kueuepp::kube::server {
namespace {

// resource / name / subresource / namespace / watch path, as kube-apiserver's
// RequestInfoFactory reads them.
std::string parts(std::string_view target) {
  auto t = parse_target(target);
  if (!t) return "malformed";
  const RequestInfo& i = t->first;
  return (i.is_resource ? "" : "(not a resource) ") + i.group + "/" + i.version + " " + i.resource + "|" + i.name +
         "|" + i.subresource + "|ns=" + i.ns + (i.watch_path ? "|watch" : "");
}

TEST(ParseTarget, ResourcePaths) {
  EXPECT_EQ(parts("/api/v1/pods"), "/v1 pods|||ns=");
  EXPECT_EQ(parts("/api/v1/namespaces"), "/v1 namespaces|||ns=");
  EXPECT_EQ(parts("/api/v1/namespaces/team"), "/v1 namespaces|team||ns=");
  EXPECT_EQ(parts("/api/v1/namespaces/team/status"), "/v1 namespaces|team|status|ns=");
  EXPECT_EQ(parts("/api/v1/namespaces/team/finalize"), "/v1 namespaces|team|finalize|ns=");
  EXPECT_EQ(parts("/api/v1/namespaces/team/pods"), "/v1 pods|||ns=team");
  EXPECT_EQ(parts("/apis/kueue.x-k8s.io/v1beta2/namespaces/team/workloads/w/status"),
            "kueue.x-k8s.io/v1beta2 workloads|w|status|ns=team");
  EXPECT_EQ(parts("/api/v1/namespaces/team/pods/p/proxy/a/b"), "/v1 pods|p|proxy/a/b|ns=team");
  EXPECT_EQ(parts("/api/v1/watch/namespaces/team/pods"), "/v1 pods|||ns=team|watch");
  EXPECT_EQ(parts("/api/v1/watch/pods"), "/v1 pods|||ns=|watch");
  EXPECT_EQ(parts("/api/v1/watch"), "/v1 watch|||ns=");
  EXPECT_EQ(parts("/apis/batch/v1"), "(not a resource) batch/v1 |||ns=");
  EXPECT_EQ(parts("/healthz"), "(not a resource) / |||ns=");
  EXPECT_EQ(parts("/api/v1/namespaces/a%zz"), "malformed");
}

TEST(QueryFlag, OnlyZeroAndFalseAreFalseAsGoConvertsThem) {
  const Query q = Query::parse("a=true&b=1&c=maybe&d=0&e=FALSE&f=false&g=");
  EXPECT_TRUE(q.flag("a"));
  EXPECT_TRUE(q.flag("b"));
  EXPECT_TRUE(q.flag("c"));
  EXPECT_FALSE(q.flag("d"));
  EXPECT_FALSE(q.flag("e"));
  EXPECT_FALSE(q.flag("f"));
  EXPECT_TRUE(q.flag("g"));
  EXPECT_FALSE(q.flag("absent"));
}

}  // namespace
}  // namespace kueuepp::kube::server
