// Header fields as the API client and the embedded API server both hold them.

#include "kube/http/headers.hpp"

#include <gtest/gtest.h>

namespace kueuepp::http {
namespace {

TEST(Headers, NamesCompareCaseInsensitivelyInAscii) {
  EXPECT_TRUE(iequals("Content-Type", "content-type"));
  EXPECT_TRUE(iequals("", ""));
  EXPECT_FALSE(iequals("Content-Type", "Content-Typ"));
  EXPECT_FALSE(iequals("a-b", "a_b"));
  EXPECT_FALSE(iequals("\xc3\x89", "\xc3\xa9"));  // É and é: ASCII only
}

TEST(Headers, FindsTheFirstAndEveryValue) {
  const Headers headers{{"Warning", "one"}, {"content-type", "application/json"}, {"warning", "two"}};
  EXPECT_EQ(find_header(headers, "Content-Type"), "application/json");
  EXPECT_EQ(find_header(headers, "WARNING"), "one");
  EXPECT_FALSE(find_header(headers, "Retry-After"));
  EXPECT_EQ(find_headers(headers, "warning"), (std::vector<std::string_view>{"one", "two"}));
  EXPECT_TRUE(find_headers(headers, "accept").empty());
}

}  // namespace
}  // namespace kueuepp::http
