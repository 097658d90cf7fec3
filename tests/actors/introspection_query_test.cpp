// The request target of an introspection query: path, query parameters, page bounds.

#include <gtest/gtest.h>

#include "actors/introspection_query.hpp"

namespace kueuepp::actors {
namespace {

TEST(IntrospectionQuery, SplitsPathAndDecodesParameters) {
  auto t = split_target("/debug/clusterqueues/cq?offset=10&limit=5&x=a%2Fb+c&flag");
  EXPECT_EQ(t.path, "/debug/clusterqueues/cq");
  EXPECT_EQ(t.query.at("offset"), "10");
  EXPECT_EQ(t.query.at("x"), "a/b c");
  EXPECT_EQ(t.query.at("flag"), "");
  EXPECT_TRUE(split_target("/debug/actors").query.empty());
  EXPECT_EQ(split_target("/p?bad=%zz%").query.at("bad"), "%zz%");
}

TEST(IntrospectionQuery, PageHasDefaultsAndBounds) {
  auto p = page_of(split_target("/x"), 500, 2000);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->offset, 0u);
  EXPECT_EQ(p->limit, 500u);
  p = page_of(split_target("/x?offset=40000&limit=2000"), 500, 2000);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->offset, 40000u);
  EXPECT_EQ(p->limit, 2000u);
  for (const char* bad : {"/x?limit=2001", "/x?limit=0", "/x?limit=-1", "/x?offset=ten", "/x?offset=", "/x?limit=1e3"}) {
    auto r = page_of(split_target(bad), 500, 2000);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("query parameter"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace kueuepp::actors
