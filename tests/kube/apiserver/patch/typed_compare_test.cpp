// compare_objects matches list elements by key (list-maps) or value (sets) as
// structured-merge-diff does, by their serialized form: numbers Go prints alike (80 and
// 80.0) are one element, a string "1" and a number 1 are two; duplicated keys compare as
// groups. Short and long lists (matched differently) agree.

#include <gtest/gtest.h>

#include <span>
#include <string_view>

#include "kube/apiserver/patch/apply_schema.hpp"
#include "kube/apiserver/patch/typed_ops.hpp"
#include "tests/kube/apiserver/patch/test_json.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

using kube::patch::testing::J;

ListStrategy lists(FieldPath path) {
  if (path.size() == 2 && path[0] == "spec" && path[1] == "items") return {ListStrategy::Kind::Map, {"name"}};
  if (path.size() == 2 && path[0] == "spec" && path[1] == "ports") return {ListStrategy::Kind::Map, {"name", "port"}};
  if (path.size() == 2 && path[0] == "spec" && path[1] == "tags") return {ListStrategy::Kind::Set, {}};
  return {};
}

// added | modified | removed, as FieldsV1.
std::string changes(std::string_view before, std::string_view after, std::span<const std::string_view> changeable = {}) {
  const json::value b = J(before), a = J(after);
  const ApplySchema schema(a, lists, [](FieldPath) { return false; });
  const Comparison c = compare_objects(b, a, schema, /*ignore_managed_fields=*/false, changeable);
  return json::dump(c.added.to_fields_v1()) + " | " + json::dump(c.modified.to_fields_v1()) + " | " +
         json::dump(c.removed.to_fields_v1());
}

TEST(CompareObjects, ListMapElementsMatchByKeyWhateverTheirOrder) {
  EXPECT_EQ(changes(R"({"spec":{"items":[{"name":"a","x":1},{"name":"b","x":1}]}})",
                    R"({"spec":{"items":[{"name":"b","x":2},{"name":"a","x":1},{"name":"c"}]}})"),
            R"({"f:spec":{"f:items":{"k:{\"name\":\"c\"}":{".":{},"f:name":{}}}}} | {"f:spec":{"f:items":{"k:{\"name\":\"b\"}":{"f:x":{}}}}} | {})");
}

TEST(CompareObjects, DuplicatedKeysCompareAsAGroup) {
  EXPECT_EQ(changes(R"({"spec":{"items":[{"name":"a","x":1},{"name":"a","x":2},{"name":"b"}]}})",
                    R"({"spec":{"items":[{"name":"a","x":1},{"name":"b"},{"name":"a","x":3}]}})"),
            R"({} | {"f:spec":{"f:items":{"k:{\"name\":\"a\"}":{}}}} | {})");
  EXPECT_EQ(changes(R"({"spec":{"items":[{"name":"a","x":1},{"name":"a","x":2}]}})",
                    R"({"spec":{"items":[{"name":"a","x":1}]}})"),
            R"({"f:spec":{"f:items":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:x":{}}}}} | {} | {"f:spec":{"f:items":{"k:{\"name\":\"a\"}":{}}}})");
}

TEST(CompareObjects, KeysAndSetValuesMatchAsSerialized) {
  // 80 and 80.0 print alike: one element, its x modified.
  EXPECT_EQ(changes(R"({"spec":{"ports":[{"name":"a","port":80,"x":1}]}})",
                    R"({"spec":{"ports":[{"name":"a","port":80.0,"x":2}]}})"),
            R"({} | {"f:spec":{"f:ports":{"k:{\"name\":\"a\",\"port\":80}":{"f:x":{}}}}} | {})");
  // 1 and 1.0 are one set value; the string "1" another.
  EXPECT_EQ(changes(R"({"spec":{"tags":[1,"1","x"]}})", R"({"spec":{"tags":[1.0,"x","2"]}})"),
            R"({"f:spec":{"f:tags":{"v:\"2\"":{}}}} | {} | {"f:spec":{"f:tags":{"v:\"1\"":{}}}})");
}

TEST(CompareObjects, LongListsMatchLikeShortOnes) {
  std::string before = R"({"spec":{"items":[)", after = before;
  for (int i = 0; i < 20; ++i) {
    before += (i > 0 ? "," : "") + std::string(R"({"name":"n)") + std::to_string(i) + R"(","x":1})";
    after += (i > 0 ? "," : "") + std::string(R"({"name":"n)") + std::to_string(19 - i) + R"(","x":)" +
             (i == 3 ? "2" : "1") + "}";
  }
  before += "]}}";
  after += R"(,{"name":"n0","x":5}]}})";
  EXPECT_EQ(changes(before, after),
            R"({"f:spec":{"f:items":{"k:{\"name\":\"n0\"}":{}}}} | {"f:spec":{"f:items":{"k:{\"name\":\"n16\"}":{"f:x":{}}}}} | {"f:spec":{"f:items":{"k:{\"name\":\"n0\"}":{".":{},"f:name":{},"f:x":{}}}}})");
}

// Lists whose elements keep their string keys and places (the usual write) are paired by
// index; they report what the general matching reports, and fall back to it as soon as a
// key repeats, is not a string or moves.
TEST(CompareObjects, AlignedListsPairByIndexLikeTheGeneralMatching) {
  EXPECT_EQ(changes(R"({"spec":{"items":[{"name":"a","x":1},{"name":"b","x":1,"y":1}]}})",
                    R"({"spec":{"items":[{"name":"a","x":1},{"name":"b","x":2,"z":1}]}})"),
            R"({"f:spec":{"f:items":{"k:{\"name\":\"b\"}":{"f:z":{}}}}} | {"f:spec":{"f:items":{"k:{\"name\":\"b\"}":{"f:x":{}}}}} | {"f:spec":{"f:items":{"k:{\"name\":\"b\"}":{"f:y":{}}}}})");
  // A repeated key: the group is modified as a whole.
  EXPECT_EQ(changes(R"({"spec":{"items":[{"name":"a","x":1},{"name":"a","x":2}]}})",
                    R"({"spec":{"items":[{"name":"a","x":1},{"name":"a","x":3}]}})"),
            R"({} | {"f:spec":{"f:items":{"k:{\"name\":\"a\"}":{}}}} | {})");
  // Keys printed like Go: 80 and 80.0 are one element.
  EXPECT_EQ(changes(R"({"spec":{"ports":[{"name":"a","port":80,"x":1}]}})",
                    R"({"spec":{"ports":[{"name":"a","port":80.0,"x":1}]}})"),
            R"({} | {} | {})");
  // A key gone from an element: it is another element.
  EXPECT_EQ(changes(R"({"spec":{"items":[{"name":"a","x":1}]}})", R"({"spec":{"items":[{"x":1}]}})"),
            R"({"f:spec":{"f:items":{"k:{}":{".":{},"f:x":{}}}}} | {} | {"f:spec":{"f:items":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:x":{}}}}})");
}

// The caller vouches for the members left out (a status write keeps spec as stored): they
// are not compared, at any depth, whatever they hold; those listed are as without a list.
TEST(CompareObjects, OnlyTheChangeableTopLevelMembers) {
  static constexpr std::string_view kStatusWrite[] = {"metadata", "status"};
  const std::string_view before = R"({"spec":{"x":1,"gone":1},"metadata":{"a":1},"status":{"s":1}})";
  const std::string_view after = R"({"spec":{"x":2,"new":1},"metadata":{"a":2},"status":{"s":2},"extra":1})";
  EXPECT_EQ(changes(before, after, kStatusWrite),
            R"({} | {"f:metadata":{"f:a":{}},"f:status":{"f:s":{}}} | {})");
  EXPECT_EQ(changes(before, after),
            R"({"f:extra":{},"f:spec":{"f:new":{}}} | {"f:metadata":{"f:a":{}},"f:spec":{"f:x":{}},"f:status":{"f:s":{}}} | {"f:spec":{"f:gone":{}}})");
}

}  // namespace
}  // namespace kueuepp::kube::patch::detail
