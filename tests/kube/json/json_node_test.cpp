#include "kube/json/json_node.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kueuepp::json {
namespace {

// Everything a decoder can learn of a node, spelled out: two nodes that render alike
// read alike through every JsonNode accessor.
std::string render(JsonNode n) {
  if (!n) return "<absent>";
  switch (n.type()) {
    case NodeType::Null: return "null";
    case NodeType::Bool: return n.get_bool() ? "true" : "false";
    case NodeType::Int64: return "i" + std::to_string(n.get_int64());
    case NodeType::Uint64: return "u" + std::to_string(n.get_uint64());
    case NodeType::Double: return "d" + std::to_string(n.get_double());
    case NodeType::String: return "\"" + std::string(n.get_string()) + "\"";
    case NodeType::Array: {
      std::string out = "[" + std::to_string(n.size()) + ":";
      n.for_each_element([&](std::size_t i, JsonNode e) { out += std::to_string(i) + "=" + render(e) + ","; });
      return out + "]";
    }
    case NodeType::Object: {
      std::string out = "{" + std::to_string(n.size()) + ":";
      n.for_each_member([&](std::string_view k, JsonNode v) {
        out += std::string(k) + "=" + render(v) + "(" + render(n.find(k)) + "),";
      });
      return out + "}";
    }
  }
  return "?";
}

class JsonNodeBackings : public ::testing::TestWithParam<const char*> {};

TEST_P(JsonNodeBackings, SimdjsonTextReadsLikeTheBoostDocument) {
  const std::string text = GetParam();
  auto boost_doc = parse(text);
  ASSERT_TRUE(boost_doc.has_value()) << text;
  JsonText parsed;
  auto simd_root = parsed.parse(text);
  ASSERT_TRUE(simd_root.has_value()) << simd_root.error().message;
  EXPECT_EQ(render(*simd_root), render(JsonNode(&*boost_doc)));
}

INSTANTIATE_TEST_SUITE_P(
    Documents, JsonNodeBackings,
    ::testing::Values(R"({})", R"([])", R"(null)", R"(true)", R"(-5)", R"(18446744073709551615)", R"(9223372036854775807)",
                      R"(1.5)", R"(2e3)", R"("a\"b\u00e9")",
                      R"({"metadata":{"name":"w","labels":{"a":"1","b":null}},"spec":{"podSets":[{"count":3},{}]},
                          "status":null,"list":[1,-2,3.25,"x",false,null,[],{}]})",
                      R"({"key with \"quotes\"":1,"":2,"uni\u00e9":[[[]]]})"));

TEST(JsonNode, AbsentIsNotNull) {
  const char* text = R"({"a":null,"b":{"c":1}})";
  auto doc = parse(text);
  ASSERT_TRUE(doc.has_value());
  JsonText parsed;
  auto simd_root = parsed.parse(text);
  ASSERT_TRUE(simd_root.has_value());
  for (JsonNode root : {JsonNode(&*doc), *simd_root}) {  // both backings alike
    EXPECT_TRUE(root.find("a"));
    EXPECT_TRUE(root.find("a").is_null());
    EXPECT_FALSE(root.find("missing"));
    EXPECT_FALSE(root.find("b").find("c").find("d"));  // not an object
    EXPECT_EQ(root.find("b").find("c").get_int64(), 1);
  }
  EXPECT_FALSE(JsonNode().find("x"));
  EXPECT_EQ(JsonNode().size(), 0u);
  EXPECT_TRUE(JsonNode().is_null());
}

TEST(JsonNode, WrongTypedReadsAreEmptyNotACrash) {
  JsonText parsed;
  auto root = parsed.parse(R"({"s":"x","n":7})");
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(root->find("n").get_string(), "");
  EXPECT_EQ(root->find("s").get_int64(), 0);
  EXPECT_EQ(root->find("s").get_double(), 0.0);
  EXPECT_FALSE(root->find("n").get_bool());
  int calls = 0;
  root->find("s").for_each_element([&](std::size_t, JsonNode) { ++calls; });
  root->find("n").for_each_member([&](std::string_view, JsonNode) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(JsonNode, TheFirstOfARepeatedKeyIsFound) {
  JsonText parsed;
  auto root = parsed.parse(R"({"k":1,"k":2})");
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(root->find("k").get_int64(), 1);
}

TEST(JsonText, InvalidTextIsAnErrorAndTheParserStaysUsable) {
  JsonText parsed;
  for (const char* bad : {"{", "", "{\"a\":}", "[1,]", "nul", "{\"a\":1}x"}) {
    auto root = parsed.parse(bad);
    ASSERT_FALSE(root.has_value()) << bad;
    EXPECT_NE(root.error().message.find("invalid JSON"), std::string::npos) << root.error().message;
  }
  auto ok = parsed.parse(R"({"a":[1,2]})");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->find("a").size(), 2u);
}

}  // namespace
}  // namespace kueuepp::json
