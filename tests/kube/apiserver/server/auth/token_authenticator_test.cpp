// Static bearer tokens as kube-apiserver's --token-auth-file reads them, beside the
// server's own system:masters token.

#include <gtest/gtest.h>

#include "kube/apiserver/server/auth/token_authenticator.hpp"

namespace kueuepp::kube::server::auth {
namespace {

TEST(TokenAuthenticator, TheServersTokenIsMasters) {
  TokenAuthenticator a("s3cret");
  auto u = a.authenticate_header("Bearer s3cret");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->name, "kueuepp");
  EXPECT_TRUE(u->is_master());
  EXPECT_TRUE(u->in_group("system:authenticated"));
  EXPECT_FALSE(a.authenticate_header("Bearer s3cre"));
  // kube-apiserver's reading: any case of the scheme, surrounding space trimmed, the
  // token the second space-separated part.
  EXPECT_TRUE(a.authenticate_header("bearer s3cret"));
  EXPECT_TRUE(a.authenticate_header(" Bearer s3cret "));
  EXPECT_TRUE(a.authenticate_header("Bearer s3cret trailing"));
  EXPECT_FALSE(a.authenticate_header("Bearer  s3cret"));
  EXPECT_FALSE(a.authenticate_header("Bearer"));
  EXPECT_FALSE(a.authenticate_header("Basic s3cret"));
  EXPECT_FALSE(a.authenticate_header(""));
  EXPECT_FALSE(TokenAuthenticator().authenticate_token(""));
}

TEST(TokenAuthenticator, TokenFileLines) {
  TokenAuthenticator a;
  ASSERT_TRUE(a.add_token_file("# a comment\n"
                               "alice-token,alice,1001,\"devs,qa\"\r\n"
                               "\n"
                               "bob-token,bob,1002\n"
                               "carol-token,carol,,system:masters\n"));
  auto alice = a.authenticate_token("alice-token");
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->name, "alice");
  EXPECT_EQ(alice->uid, "1001");
  EXPECT_EQ(alice->groups, (std::vector<std::string>{"devs", "qa", "system:authenticated"}));
  auto bob = a.authenticate_token("bob-token");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->groups, std::vector<std::string>{"system:authenticated"});
  EXPECT_FALSE(bob->is_master());
  EXPECT_TRUE(a.authenticate_token("carol-token")->is_master());
}

TEST(TokenAuthenticator, BadLinesSayWhichAndWhy) {
  TokenAuthenticator a;
  EXPECT_EQ(a.add_token_file("t,u,1\nonly,two\n").error().message,
            "token auth file, line 2: needs at least 3 columns (token,user,uid[,\"group1,group2\"]), has 2");
  EXPECT_EQ(TokenAuthenticator().add_token_file(",u,1\n").error().message,
            "token auth file, line 1: the token and the user may not be empty");
  EXPECT_EQ(TokenAuthenticator().add_token_file("t,u,1,\"g\n").error().message,
            "token auth file, line 1: a quoted field is not closed");
  EXPECT_EQ(TokenAuthenticator().add_token_file("t,u,1\nt,v,2\n").error().message,
            "token auth file, line 2: the token is given twice");
  EXPECT_EQ(TokenAuthenticator().load_token_file("/nonexistent/tokens.csv").error().message,
            "cannot read the token auth file /nonexistent/tokens.csv");
}

TEST(TokenAuthenticator, CsvQuoting) {
  EXPECT_EQ(*split_csv_line(R"(a,"b,c","d""e",)"), (std::vector<std::string>{"a", "b,c", "d\"e", ""}));
}

}  // namespace
}  // namespace kueuepp::kube::server::auth
