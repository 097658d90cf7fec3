#include "kube/apiserver/conformance/placeholders.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::conformance {
namespace {

Captures sample() {
  Captures c;
  c["rv1"] = "123";
  c["tok"] = "a b/c=d";
  c["gen"] = 2;
  c["obj"] = *json::parse(R"({"k":[1]})");
  return c;
}

TEST(Placeholders, PathValuesArePercentEncoded) {
  auto path = substitute_in_path("/api/v1/x?limit=2&continue=${tok}&rv=${rv1}&g=${gen}", sample());
  ASSERT_TRUE(path);
  EXPECT_EQ(*path, "/api/v1/x?limit=2&continue=a%20b%2Fc%3Dd&rv=123&g=2");
  auto obj = substitute_in_path("/x/${obj}", sample());
  ASSERT_TRUE(obj);
  EXPECT_EQ(*obj, "/x/%7B%22k%22%3A%5B1%5D%7D");
}

TEST(Placeholders, WholeStringPlaceholdersKeepTheirJsonType) {
  auto body = substitute_in_json(*json::parse(R"({"metadata":{"resourceVersion":"${rv1}","generation":"${gen}",
      "note":"rv=${rv1}, gen=${gen}","${rv1}":"key stays"},"list":["${obj}"]})"),
                                 sample());
  ASSERT_TRUE(body);
  EXPECT_EQ(json::dump(*body),
            R"({"metadata":{"resourceVersion":"123","generation":2,"note":"rv=123, gen=2","${rv1}":"key stays"},"list":[{"k":[1]}]})");
}

TEST(Placeholders, TextBodiesAreSplicedVerbatim) {
  auto text = substitute_in_text("{\"metadata\":{\"resourceVersion\":\"${rv1}\"}} ${tok}", sample());
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "{\"metadata\":{\"resourceVersion\":\"123\"}} a b/c=d");
}

TEST(Placeholders, UnknownNamesAreErrorsAndNonPlaceholdersStay) {
  auto unknown = substitute_in_path("/x/${nope}", sample());
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("${nope}"), std::string::npos);
  EXPECT_FALSE(substitute_in_json(json::value("${nope}"), sample()));
  EXPECT_FALSE(substitute_in_json(*json::parse(R"({"a":["x ${nope}"]})"), sample()));
  EXPECT_EQ(*substitute_in_text("$ {x} ${ unterminated", sample()), "$ {x} ${ unterminated");
  EXPECT_EQ(*substitute_in_text("$$", sample()), "$$");
}

TEST(Placeholders, PlaceholderTextRendersNonStringsAsJson) {
  EXPECT_EQ(placeholder_text(json::value("s")), "s");
  EXPECT_EQ(placeholder_text(json::value(3)), "3");
  EXPECT_EQ(placeholder_text(json::value(true)), "true");
  EXPECT_EQ(placeholder_text(json::value(nullptr)), "null");
}

}  // namespace
}  // namespace kueuepp::kube::conformance
