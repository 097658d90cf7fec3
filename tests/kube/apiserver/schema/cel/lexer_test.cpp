#include "kube/apiserver/schema/cel/lexer.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::schema::cel {
namespace {

std::vector<Tok> kinds(std::string_view src) {
  auto t = tokenize(src);
  EXPECT_TRUE(t.has_value()) << src << ": " << (t ? "" : t.error().message);
  std::vector<Tok> out;
  if (t) {
    for (const auto& x : *t) out.push_back(x.kind);
  }
  return out;
}

TEST(Lexer, Operators) {
  EXPECT_EQ(kinds("a.b[0] == !c && d || e ? f : g"),
            (std::vector<Tok>{Tok::Ident, Tok::Dot, Tok::Ident, Tok::LBracket, Tok::Int, Tok::RBracket, Tok::EqEq, Tok::Not,
                              Tok::Ident, Tok::AndAnd, Tok::Ident, Tok::OrOr, Tok::Ident, Tok::Question, Tok::Ident,
                              Tok::Colon, Tok::Ident, Tok::End}));
  EXPECT_EQ(kinds("<= >= < > != + - * / % , { } ( ) in"),
            (std::vector<Tok>{Tok::LessEq, Tok::GreaterEq, Tok::Less, Tok::Greater, Tok::NotEq, Tok::Plus, Tok::Minus,
                              Tok::Star, Tok::Slash, Tok::Percent, Tok::Comma, Tok::LBrace, Tok::RBrace, Tok::LParen,
                              Tok::RParen, Tok::In, Tok::End}));
}

TEST(Lexer, Literals) {
  auto t = tokenize("12 0x1f 3u 1.5 .5 1e3 'a' \"b\" r'\\n' b'x' true false null");
  ASSERT_TRUE(t.has_value());
  const auto& v = *t;
  EXPECT_EQ(v[0].u, 12u);
  EXPECT_EQ(v[1].u, 31u);
  EXPECT_EQ(v[2].kind, Tok::Uint);
  EXPECT_DOUBLE_EQ(v[3].d, 1.5);
  EXPECT_DOUBLE_EQ(v[4].d, 0.5);
  EXPECT_DOUBLE_EQ(v[5].d, 1000);
  EXPECT_EQ(v[6].text, "a");
  EXPECT_EQ(v[7].text, "b");
  EXPECT_EQ(v[8].text, "\\n");
  EXPECT_EQ(v[9].kind, Tok::Bytes);
  EXPECT_EQ(v[10].kind, Tok::True);
  EXPECT_EQ(v[11].kind, Tok::False);
  EXPECT_EQ(v[12].kind, Tok::Null);
  // "1." is an int followed by a dot, as in cel-go's grammar.
  EXPECT_EQ(kinds("1.a"), (std::vector<Tok>{Tok::Int, Tok::Dot, Tok::Ident, Tok::End}));
}

TEST(Lexer, ErrorsNameThePosition) {
  auto t = tokenize("a +\n  'x");
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().message, "ERROR: <input>:2:3: unterminated string literal");
  EXPECT_EQ(tokenize("a @ b").error().message, "ERROR: <input>:1:3: Syntax error: token recognition error at: '@'");
  EXPECT_EQ(tokenize("99999999999999999999").error().message, "ERROR: <input>:1:1: invalid int literal");
}

// Reserved words are identifiers to the lexer (the parser decides where they may stand);
// a backquoted name is one token, as in cel-go's grammar.
TEST(Lexer, ReservedWordsAndEscapedNames) {
  EXPECT_EQ(kinds("var.namespace"), (std::vector<Tok>{Tok::Ident, Tok::Dot, Tok::Ident, Tok::End}));
  auto t = tokenize("a.`b-c /d`");
  ASSERT_TRUE(t.has_value());
  ASSERT_EQ(t->size(), 4u);
  EXPECT_EQ((*t)[2].kind, Tok::EscIdent);
  EXPECT_EQ((*t)[2].text, "b-c /d");
  EXPECT_EQ(tokenize("a.``").error().message, "ERROR: <input>:1:3: Syntax error: token recognition error at: '`'");
}

TEST(Lexer, CommentsAndWhitespace) {
  EXPECT_EQ(kinds("  // only a comment\n\t a // trailing"), (std::vector<Tok>{Tok::Ident, Tok::End}));
}

}  // namespace
}  // namespace kueuepp::kube::schema::cel
