#include "kube/json/yaml.hpp"

#include <gtest/gtest.h>

namespace kueuepp::json {
namespace {

value one(std::string_view text) {
  auto v = parse_yaml(text);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return v ? *v : value(nullptr);
}

TEST(Yaml, PlainScalarsResolveLikeTheCoreSchema) {
  value v = one("a: 1\nb: 1.5\nc: true\nd: ~\ne: 1Gi\nf: 500m\ng: 1e3\nh: -7\ni: 0x10\nj: yes\n");
  EXPECT_EQ(v.at("a").as_int64(), 1);
  EXPECT_DOUBLE_EQ(v.at("b").as_double(), 1.5);
  EXPECT_EQ(v.at("c").as_bool(), true);
  EXPECT_TRUE(v.at("d").is_null());
  EXPECT_EQ(v.at("e").as_string(), "1Gi");
  EXPECT_EQ(v.at("f").as_string(), "500m");
  EXPECT_DOUBLE_EQ(v.at("g").as_double(), 1000.0);
  EXPECT_EQ(v.at("h").as_int64(), -7);
  EXPECT_EQ(v.at("i").as_int64(), 16);
  EXPECT_EQ(v.at("j").as_string(), "yes");
}

TEST(Yaml, QuotedScalarsStayStrings) {
  value v = one("a: \"1\"\nb: 'true'\nc: \"\"\n");
  EXPECT_EQ(v.at("a").as_string(), "1");
  EXPECT_EQ(v.at("b").as_string(), "true");
  EXPECT_EQ(v.at("c").as_string(), "");
}

TEST(Yaml, FlowCollectionsAndNesting) {
  value v = one("metadata: {name: x, labels: {a: b}}\nitems: [1, two, {k: v}]\n");
  EXPECT_EQ(v.at("metadata").at("labels").at("a").as_string(), "b");
  ASSERT_EQ(v.at("items").as_array().size(), 3u);
  EXPECT_EQ(v.at("items").as_array()[1].as_string(), "two");
}

TEST(Yaml, MultipleDocumentsKeepEmptyOnesAsNull) {
  auto docs = parse_yaml_documents("# c\n---\na: 1\n---\n---\nb: 2\n");
  ASSERT_TRUE(docs.has_value());
  int non_null = 0;
  for (auto& d : *docs) non_null += d.is_null() ? 0 : 1;
  EXPECT_EQ(non_null, 2);
}

TEST(Yaml, SyntaxErrorsNameTheLine) {
  auto v = parse_yaml("a: [1, 2\nb: c\n");
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message.find("line"), std::string::npos) << v.error().message;
}

// Found by fuzz/json_fuzzer: bytes that are not UTF-8 went through into strings, and a
// document holding them was dumped as JSON that no parser reads back.
TEST(Yaml, TextThatIsNotUtf8IsAnErrorThatSaysWhere) {
  struct Case {
    std::string text;
    const char* says;
  };
  const Case cases[] = {
      {"a: b\nc: \xff\xff\n", "line 2, column 4: the text is not UTF-8 (byte 0xff)"},
      {"a: \xc3\n", "line 1, column 4: the text is not UTF-8 (byte 0xc3)"},     // cut short
      {"a: \xc0\xaf\n", "line 1, column 4: the text is not UTF-8 (byte 0xc0)"},  // overlong '/'
      {"a: \xed\xa0\x80\n", "line 1, column 4: the text is not UTF-8 (byte 0xed)"},  // a surrogate
      {"{a: 1}: [\x80]\n", "line 1, column 10: the text is not UTF-8 (byte 0x80)"},
  };
  for (const auto& c : cases) {
    auto v = parse_yaml_documents(c.text);
    ASSERT_FALSE(v.has_value()) << c.text;
    EXPECT_NE(v.error().message.find(c.says), std::string::npos) << v.error().message;
  }
  auto ok = parse_yaml("a: \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n");
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  EXPECT_EQ(get_string(*ok, "a"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

// Found by fuzz/json_fuzzer (in CI): yaml-cpp decodes "\N" and "\_" to one Latin-1 byte,
// which made a string no JSON parser reads back. They are U+0085 and U+00A0 in UTF-8,
// as YAML says and as sigs.k8s.io/yaml reads them.
TEST(Yaml, NextLineAndNoBreakSpaceEscapesBecomeUtf8) {
  auto v = parse_yaml("a: \"x\\Ny\\_z\"\n\"k\\N\": [-7, \"\\Nullu0\"]\n");
  ASSERT_TRUE(v.has_value()) << v.error().message;
  EXPECT_EQ(get_string(*v, "a"), "x\xc2\x85y\xc2\xa0z");
  const auto& list = v->as_object().at("k\xc2\x85").as_array();
  ASSERT_EQ(list.size(), 2U);
  EXPECT_EQ(list[1].as_string(), "\xc2\x85ullu0");
  auto text = dump(*v);
  auto again = parse(text);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_TRUE(equal(*again, *v));
  auto same = parse_yaml("a: \"\\u0085 \\u00a0 \\x85\"\n");
  ASSERT_TRUE(same.has_value()) << same.error().message;
  EXPECT_EQ(get_string(*same, "a"), "\xc2\x85 \xc2\xa0 \xc2\x85");
}

// Found by fuzz/json_fuzzer (in CI): an alias inside its own anchor made a cycle that the
// conversion followed until the stack overflowed. It, and aliases of aliases that expand
// exponentially, are errors now; ordinary aliases still work.
TEST(Yaml, AliasesThatLoopOrExplodeAreErrors) {
  auto loop = parse_yaml_documents("e: &b\n  <<: *b\n  z: 3\n");
  ASSERT_FALSE(loop.has_value());
  EXPECT_NE(loop.error().message.find("an alias inside its own anchor"), std::string::npos) << loop.error().message;

  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    const char prev = static_cast<char>(c - 1);
    laughs += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
              ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  }
  auto exploded = parse_yaml_documents(laughs);
  ASSERT_FALSE(exploded.has_value());
  EXPECT_NE(exploded.error().message.find("too many values through its aliases"), std::string::npos)
      << exploded.error().message;

  auto fine = parse_yaml("base: &b {x: 1, y: [1, 2]}\nuse: *b\nmerged: {<<: *b, z: 3}\n");
  ASSERT_TRUE(fine.has_value()) << fine.error().message;
  EXPECT_EQ(dump(fine->as_object().at("use")), R"({"x":1,"y":[1,2]})");

  auto complex_key = parse_yaml("? [key]\n: value\n");
  ASSERT_FALSE(complex_key.has_value());
  EXPECT_NE(complex_key.error().message.find("a map key must be a string"), std::string::npos)
      << complex_key.error().message;
}

// Found by fuzz/kubeconfig_fuzzer: yaml-cpp 0.7 made null documents for ever (until
// memory ran out) from a document that starts with a token no value starts with.
TEST(Yaml, ACommaAtTheTopLevelIsAnErrorNotALoop) {
  for (const char* text : {",", ",clusters: [{name: c}]\n", "---\n,\n", "\"x\" ,", "[a], b", "a: 1\n---\n  ,\n"}) {
    auto v = parse_yaml_documents(text);
    ASSERT_FALSE(v.has_value()) << text;
    EXPECT_NE(v.error().message.find("no value can start here"), std::string::npos) << v.error().message;
  }
  auto docs = parse_yaml_documents("---\n---\na: 1\n---\n");
  ASSERT_TRUE(docs.has_value()) << docs.error().message;
  int non_null = 0;
  for (auto& d : *docs) non_null += d.is_null() ? 0 : 1;
  EXPECT_EQ(non_null, 1);
}

// Found by fuzz/json_fuzzer: with NULs in it, yaml-cpp took the text for UTF-32 and made
// strings that are not UTF-8 of it.
TEST(Yaml, ControlCharactersAreAnErrorThatSaysWhere) {
  auto nul = parse_yaml_documents(std::string("b\0\0\0[-0.0]", 9));
  ASSERT_FALSE(nul.has_value());
  EXPECT_NE(nul.error().message.find("line 1, column 2: control characters are not allowed (byte 0x00)"), std::string::npos)
      << nul.error().message;
  auto escape = parse_yaml_documents("a: 1\nb: \x1b[0m\n");
  ASSERT_FALSE(escape.has_value());
  EXPECT_NE(escape.error().message.find("line 2, column 4"), std::string::npos) << escape.error().message;
  auto allowed = parse_yaml("a:\tb\r\nc: d\n");
  ASSERT_TRUE(allowed.has_value()) << allowed.error().message;
}

// Found by fuzz/json_fuzzer: .nan and .inf became doubles that JSON cannot hold.
TEST(Yaml, InfinityAndNanAreAnErrorUnlessQuoted) {
  for (const char* text : {"a: .nan\n", "a: .NAN\n", "a:\n  b: -.inf\n", "[.Inf]", "a: !!float .nan\n"}) {
    auto v = parse_yaml_documents(text);
    ASSERT_FALSE(v.has_value()) << text;
    EXPECT_NE(v.error().message.find("has no JSON form"), std::string::npos) << v.error().message;
  }
  EXPECT_EQ(get_string(one("a: \".nan\"\n"), "a"), ".nan");
}

TEST(Yaml, MoreThanOneDocumentIsAnErrorForParseYaml) {
  auto v = parse_yaml("a: 1\n---\nb: 2\n");
  EXPECT_FALSE(v.has_value());
}

TEST(Json, ParseErrorsAreReportedNotThrown) {
  auto v = parse("{\"a\": ");
  EXPECT_FALSE(v.has_value());
  auto ok = parse("{\"a\": [1, 2]}");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(find_path(*ok, {"a"})->as_array().size(), 2u);
}

}  // namespace
}  // namespace kueuepp::json
