// kube/json helpers: lookups on objects (which must not copy them: Boost.JSON converts an
// object to a value by copying it) and the positional equality of two versions of one
// document.

#include <gtest/gtest.h>

#include <type_traits>

#include "kube/json/json.hpp"

namespace kueuepp::json {
namespace {

value parsed(std::string_view text) {
  auto v = parse(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v.has_value() ? *v : value();
}

TEST(Json, LookupsOnAnObjectPointIntoIt) {
  value doc = parsed(R"({"metadata":{"name":"a","labels":{"x":"1"}}})");
  const object& meta = doc.at("metadata").as_object();
  const value* labels = find(meta, "labels");
  ASSERT_NE(labels, nullptr);
  EXPECT_EQ(labels, &meta.at("labels")) << "a pointer into the object, not into a copy";
  std::string_view name = get_string(meta, "name");
  EXPECT_EQ(name.data(), meta.at("name").as_string().data());
  EXPECT_EQ(get_string(meta, "missing", "none"), "none");
  EXPECT_EQ(get_string(meta, "labels", "not a string"), "not a string");
  object& mutable_meta = doc.as_object()["metadata"].as_object();
  value* found = find(mutable_meta, "name");
  ASSERT_NE(found, nullptr);
  *found = "b";
  EXPECT_EQ(get_string(doc.at("metadata"), "name"), "b");
}

TEST(Json, DumpOfObjectsAndArraysMatchesTheValuesDump) {
  value doc = parsed(R"({"a":[1,"x",{"b":null}]})");
  EXPECT_EQ(dump(doc.as_object()), dump(doc));
  EXPECT_EQ(dump(doc.at("a").as_array()), dump(doc.at("a")));
}

// Anything that would reach the value overloads through a conversion is refused at
// compile time (a json::string is not an object).
template <class T>
concept Findable = requires(const T& t) { find(t, "k"); };
static_assert(Findable<value>);
static_assert(Findable<object>);
static_assert(!Findable<string>);
static_assert(!Findable<array>);

TEST(Json, EqualityMatchesBoostJsonWhateverTheMemberOrder) {
  const char* docs[] = {
      R"({"a":1,"b":{"c":[1,2,{"d":"x"}]}})",
      R"({"b":{"c":[1,2,{"d":"x"}]},"a":1})",
      R"({"a":1,"b":{"c":[1,2,{"d":"y"}]}})",
      R"({"a":1,"b":{"c":[1,2]}})",
      R"({"a":1,"b":{"c":[1,2,{"d":"x"}]},"e":null})",
      R"({"a":1.0,"b":{"c":[1,2,{"d":"x"}]}})",
      R"({"a":1,"z":{"c":[1,2,{"d":"x"}]}})",
      R"([1,2,3])",
      R"("text")",
      R"(null)",
  };
  for (const char* x : docs) {
    for (const char* y : docs) {
      value a = parsed(x);
      value b = parsed(y);
      EXPECT_EQ(equal(a, b), a == b) << x << " vs " << y;
    }
  }
  value a = parsed(docs[0]);
  value b = parsed(docs[1]);
  EXPECT_TRUE(equal(a.as_object(), b.as_object()));
  EXPECT_FALSE(equal(parsed("[1,2]").as_array(), parsed("[2,1]").as_array()));
}

}  // namespace
}  // namespace kueuepp::json
