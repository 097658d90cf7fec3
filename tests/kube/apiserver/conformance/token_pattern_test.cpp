#include "kube/apiserver/conformance/token_pattern.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::conformance {
namespace {

TEST(TokenPattern, PlainStringsMustBeEqual) {
  EXPECT_TRUE(string_matches("abc", "abc"));
  EXPECT_FALSE(string_matches("abc", "abcd"));
  EXPECT_FALSE(string_matches("<notatoken>", "x"));
  EXPECT_TRUE(string_matches("", ""));
}

TEST(TokenPattern, EachTokenMatchesOneOrMoreCharacters) {
  EXPECT_TRUE(string_matches("<uid>", "0e1c4a9b-1f3a-4c52-9d1e-2c3a4b5c6d7e"));
  EXPECT_FALSE(string_matches("<uid>", ""));
  EXPECT_TRUE(string_matches("<rv>", "1"));
  EXPECT_TRUE(string_matches("<time>", "2024-05-01T10:00:00Z"));
  EXPECT_TRUE(string_matches("<continue>", "eyJ2IjoibWV0YS5rOHMuaW8vdjEi"));
  EXPECT_TRUE(string_matches("j-<generated>", "j-x7k2p"));
  EXPECT_FALSE(string_matches("j-<generated>", "j-"));
  EXPECT_FALSE(string_matches("j-<generated>", "k-x7k2p"));
}

TEST(TokenPattern, TokensInsideTextAndSeveralTokens) {
  EXPECT_TRUE(string_matches("too old resource version: <rv> (<rv>)", "too old resource version: 12 (340)"));
  EXPECT_FALSE(string_matches("too old resource version: <rv> (<rv>)", "too old resource version: 12 ()"));
  EXPECT_TRUE(string_matches("a<rv>b<rv>c", "a1b2b3c"));  // backtracking: first token takes "1b2"
  EXPECT_TRUE(string_matches("<uid><rv>", "ab"));
  EXPECT_FALSE(string_matches("<uid><rv>", "a"));
  EXPECT_TRUE(string_matches("Operation cannot be fulfilled on jobs.batch \"j1\": the object has been modified",
                             "Operation cannot be fulfilled on jobs.batch \"j1\": the object has been modified"));
}

TEST(TokenPattern, DetectsTokens) {
  EXPECT_TRUE(has_token("x <rv> y"));
  EXPECT_FALSE(has_token("x <r v> y"));
  EXPECT_FALSE(has_token("<"));
}

}  // namespace
}  // namespace kueuepp::kube::conformance
