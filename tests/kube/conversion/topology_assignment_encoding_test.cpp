#include "kube/conversion/topology_assignment_encoding.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::conversion {
namespace {

json::object parse(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.has_value() && v->is_object());
  return v && v->is_object() ? v->as_object() : json::object{};
}

struct EncodingCase {
  const char* domains;
  const char* slices;
};

class TopologyEncoding : public ::testing::TestWithParam<EncodingCase> {};

TEST_P(TopologyEncoding, EncodesAsKueueAndDecodesBack) {
  const auto v1beta1 = parse(GetParam().domains);
  const auto v1beta2 = parse(GetParam().slices);
  auto encoded = encode_topology_slices(v1beta1, "t");
  ASSERT_TRUE(encoded.has_value()) << encoded.error().message;
  EXPECT_EQ(json::dump(*encoded), json::dump(v1beta2));
  auto decoded = decode_topology_slices(v1beta2, "t");
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(json::dump(*decoded), json::dump(v1beta1));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TopologyEncoding,
    ::testing::Values(
        EncodingCase{R"({"levels":["h"],"domains":[{"values":["n1"],"count":4}]})",
                     R"({"levels":["h"],"slices":[{"domainCount":1,"valuesPerLevel":[{"universal":"n1"}],"podCounts":{"universal":4}}]})"},
        // Prefix and suffix overlap on the shortest value: the prefix gives way.
        EncodingCase{R"({"levels":["h"],"domains":[{"values":["aba"],"count":1},{"values":["a"],"count":2}]})",
                     R"({"levels":["h"],"slices":[{"domainCount":2,"valuesPerLevel":[{"individual":{"suffix":"a","roots":["ab",""]}}],"podCounts":{"individual":[1,2]}}]})"},
        EncodingCase{R"({"levels":["r","h"],"domains":[{"values":["r1","x"],"count":1},{"values":["r2","y"],"count":1}]})",
                     R"({"levels":["r","h"],"slices":[{"domainCount":2,"valuesPerLevel":[{"individual":{"prefix":"r","roots":["1","2"]}},{"individual":{"roots":["x","y"]}}],"podCounts":{"universal":1}}]})"},
        EncodingCase{R"({"levels":["h"],"domains":[]})", R"({"levels":["h"]})"}));

TEST(TopologyEncoding, DecodesSeveralSlices) {
  auto decoded = decode_topology_slices(
      parse(R"({"levels":["h"],"slices":[{"domainCount":1,"valuesPerLevel":[{"universal":"a"}],"podCounts":{"universal":1}},)"
            R"({"domainCount":2,"valuesPerLevel":[{"individual":{"prefix":"n-","roots":["1","2"]}}],"podCounts":{"individual":[2,3]}}]})"),
      "t");
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(json::dump(*decoded),
            R"({"levels":["h"],"domains":[{"values":["a"],"count":1},{"values":["n-1"],"count":2},{"values":["n-2"],"count":3}]})");
}

TEST(TopologyEncoding, MalformedAssignmentsAreErrors) {
  EXPECT_FALSE(encode_topology_slices(parse(R"({"levels":["a","b"],"domains":[{"values":["x"],"count":1}]})"), "t").has_value());
  EXPECT_FALSE(encode_topology_slices(parse(R"({"levels":["a"],"domains":[{"values":["x"],"count":"1"}]})"), "t").has_value());
  EXPECT_FALSE(decode_topology_slices(parse(R"({"levels":["a"],"slices":[{"domainCount":1,"valuesPerLevel":[{}],"podCounts":{"universal":1}}]})"), "t").has_value());
  EXPECT_FALSE(decode_topology_slices(parse(R"({"levels":["a"],"slices":[{"domainCount":-1}]})"), "t").has_value());
  EXPECT_FALSE(decode_topology_slices(parse(R"({"levels":["a"],"slices":[{"domainCount":2,"valuesPerLevel":[{"universal":"x"}],"podCounts":{"individual":[1]}}]})"), "t").has_value());
}

}  // namespace
}  // namespace kueuepp::kube::conversion
