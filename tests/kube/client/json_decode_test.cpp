// JsonDecoder: simdjson's document rebuilt as Boost.JSON values, exactly.

#include "kube/client/json_decode.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace kueuepp::kube::client {
namespace {

std::string decoded(std::string text, DecodeOptions options = {}) {
  auto v = parse_json_in_place(text, options);
  if (!v) return "error: " + v.error().message;
  return boost::json::serialize(*v);
}

TEST(JsonDecoder, KeepsMemberOrderTypesAndNesting) {
  const std::string text =
      R"({"z":1,"a":{"y":[1,-2,3.5,"s",true,false,null,{}],"b":[]},"u":18446744073709551615,"e":"\u00e9\n"})";
  std::string copy = text;  // decoding pads it in place
  auto v = parse_json_in_place(copy);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(boost::json::serialize(*v), boost::json::serialize(boost::json::parse(text)));
  const auto& o = v->as_object();
  EXPECT_EQ(o.begin()->key(), "z");
  EXPECT_TRUE(o.at("z").is_int64());
  EXPECT_TRUE(o.at("u").is_uint64());
  EXPECT_TRUE(o.at("a").as_object().at("y").as_array()[2].is_double());
  EXPECT_EQ(o.at("e").as_string(), "\u00e9\n");
}

TEST(JsonDecoder, TheLastDuplicateWinsInTheFirstOnesPlace) {
  EXPECT_EQ(decoded(R"({"a":1,"b":2,"a":3})"), R"({"a":3,"b":2})");
  EXPECT_EQ(decoded(R"({"o":{"k":[1],"k":{"x":1}}})"), R"({"o":{"k":{"x":1}}})");
}

TEST(JsonDecoder, StripsManagedFieldsOfMetadataOnly) {
  const std::string text =
      R"({"metadata":{"name":"w","managedFields":[{"manager":"m"}]},"spec":{"managedFields":1}})";
  EXPECT_EQ(decoded(text, {.strip_managed_fields = true}), R"({"metadata":{"name":"w"},"spec":{"managedFields":1}})");
  EXPECT_EQ(decoded(text), R"({"metadata":{"name":"w","managedFields":[{"manager":"m"}]},"spec":{"managedFields":1}})");
}

TEST(JsonDecoder, MetadataOnlyKeepsTheIdentityOfTheObject) {
  const std::string text = R"({"apiVersion":"v1","kind":"Event","metadata":{"resourceVersion":"7"},"spec":{"x":1}})";
  EXPECT_EQ(decoded(text, {.metadata_only = true}), R"({"apiVersion":"v1","kind":"Event","metadata":{"resourceVersion":"7"}})");
  // Not an object: decoded whole.
  EXPECT_EQ(decoded("[1,2]", {.metadata_only = true}), "[1,2]");
}

TEST(JsonDecoder, ReusedAfterAnErrorAndForScalars) {
  JsonDecoder decoder;
  std::string bad = R"({"a":)";
  EXPECT_FALSE(decoder.decode(bad).has_value());
  std::string scalar = "42";
  auto v = decoder.decode(scalar);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->as_int64(), 42);
  std::string obj = R"({"k":"v"})";
  v = decoder.decode(obj);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(boost::json::serialize(*v), R"({"k":"v"})");
}

}  // namespace
}  // namespace kueuepp::kube::client
