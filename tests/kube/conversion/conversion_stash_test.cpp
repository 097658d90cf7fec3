#include "kube/conversion/conversion_stash.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::conversion {
namespace {

json::value parse(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.has_value());
  return v ? *v : json::value{};
}

TEST(ConversionStash, DiffNamesTheDeepestDifferences) {
  const auto a = parse(R"({"spec":{"x":1,"y":[1,2],"z":[1]},"status":{"a":"b"}})");
  const auto b = parse(R"({"spec":{"x":2,"y":[1,3],"w":true},"status":{"a":"b"}})");
  const auto entries = diff_documents(a, b);
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(describe_path(entries[0].path), "spec.x");
  EXPECT_EQ(describe_path(entries[1].path), "spec.y[1]");
  EXPECT_EQ(describe_path(entries[2].path), "spec.z");
  EXPECT_FALSE(entries[2].converted.has_value());
  EXPECT_EQ(describe_path(entries[3].path), "spec.w");
  EXPECT_FALSE(entries[3].original.has_value());
}

TEST(ConversionStash, RestoreTurnsTheRoundTripIntoTheSource) {
  const auto source = parse(R"({"spec":{"x":1,"z":[1]},"status":{"q":{"r":1}}})");
  auto round_trip = parse(R"({"spec":{"x":2,"w":true},"status":{}})");
  restore_stash(round_trip, diff_documents(source, round_trip));
  EXPECT_TRUE(json::equal(round_trip, source)) << json::dump(round_trip);
}

TEST(ConversionStash, AGroupWhoseValueChangedIsNotRestored) {
  const auto source = parse(R"({"spec":{"x":1,"y":1},"status":{"s":1}})");
  const auto round_trip = parse(R"({"spec":{"x":2,"y":2},"status":{"s":2}})");
  const auto entries = diff_documents(source, round_trip);
  auto edited = parse(R"({"spec":{"x":3,"y":2},"status":{"s":2}})");
  restore_stash(edited, entries);
  EXPECT_TRUE(json::equal(edited, parse(R"({"spec":{"x":3,"y":2},"status":{"s":1}})"))) << json::dump(edited);
}

TEST(ConversionStash, PutThenTakeLeavesTheMetadataAsItWas) {
  for (const auto* text : {R"({"metadata":{"name":"a"}})", R"({"metadata":{"name":"a","annotations":{}}})",
                           R"({"metadata":{"name":"a","annotations":{"k":"v"}}})"}) {
    auto object = parse(text);
    Stash stash{"v1beta1", {{{std::string("spec")}, json::value(1), std::nullopt}}, false};
    put_stash(object.as_object(), stash);
    const auto taken = take_stash(object.as_object());
    ASSERT_TRUE(taken.has_value()) << text;
    EXPECT_EQ(taken->version, "v1beta1");
    ASSERT_EQ(taken->entries.size(), 1u);
    EXPECT_TRUE(json::equal(*taken->entries[0].original, json::value(1)));
    EXPECT_TRUE(json::equal(object, parse(text))) << json::dump(object);
  }
}

TEST(ConversionStash, AnUnreadableStashIsDroppedNotFatal) {
  auto object = parse(R"({"metadata":{"annotations":{"kueuepp.io/conversion-stash":"{not json"}}})");
  EXPECT_FALSE(take_stash(object.as_object()).has_value());
  EXPECT_EQ(json::find_path(object, {"metadata", "annotations", "kueuepp.io/conversion-stash"}), nullptr);
}

}  // namespace
}  // namespace kueuepp::kube::conversion
