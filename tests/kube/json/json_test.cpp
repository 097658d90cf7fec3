// kube/json helpers: lookups on objects (which must not copy them: Boost.JSON converts an
// object to a value by copying it) and the positional equality of two versions of one
// document.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
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
      R"("texts")",
      R"("")",
      R"(null)",
      R"(1)",
      R"(1.0)",
      R"(18446744073709551615)",
      R"(-1)",
      R"(true)",
      R"(false)",
      R"({})",
      R"([])",
      R"(["1"])",
      R"({"a":"1"})",
      R"({"a":1})",
  };
  for (const char* x : docs) {
    for (const char* y : docs) {
      value a = parsed(x);
      value b = parsed(y);
      EXPECT_EQ(equal(a, b), a == b) << x << " vs " << y;
    }
  }
  // The same number as int64 and as uint64 is equal, as Boost.JSON has it.
  EXPECT_EQ(equal(value(std::int64_t{5}), value(std::uint64_t{5})), value(std::int64_t{5}) == value(std::uint64_t{5}));
  EXPECT_EQ(equal(value(std::int64_t{-1}), value(std::uint64_t{18446744073709551615ull})),
            value(std::int64_t{-1}) == value(std::uint64_t{18446744073709551615ull}));
  value a = parsed(docs[0]);
  value b = parsed(docs[1]);
  EXPECT_TRUE(equal(a.as_object(), b.as_object()));
  EXPECT_FALSE(equal(parsed("[1,2]").as_array(), parsed("[2,1]").as_array()));
}

}  // namespace
// dump has its own writer: it must give exactly Boost.JSON's bytes, escapes and number
// formats included, whatever the value.
TEST(Json, DumpWritesWhatBoostJsonSerializeWrites) {
  const char* docs[] = {
      R"({"a":1,"b":[true,false,null,-7,18446744073709551615,1.5,-0.0,1e300,2.5e-8,0.1],"c":{}})",
      R"(["",[],{},[[[]]],{"":{"":""}}])",
      R"({"q":"say \"hi\"\\ \/ \b\f\n\r\t \u0000\u0001\u001f\u007f \u00e9\u4e2d\ud83d\ude00"})",
      R"({"k\"ey\n":"v","long":"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\u0002"})",
      R"(-9223372036854775808)",
      R"("plain")",
      R"(12345678901234567890.5)",
  };
  for (const char* text : docs) {
    value v = parsed(text);
    EXPECT_EQ(dump(v), boost::json::serialize(v)) << text;
    if (v.is_object()) {
      EXPECT_EQ(dump(v.as_object()), boost::json::serialize(v)) << text;
    }
    if (v.is_array()) {
      EXPECT_EQ(dump(v.as_array()), boost::json::serialize(v)) << text;
    }
  }
  // Every byte value in strings (keys too), invalid UTF-8 included; long enough values
  // to grow the buffer several times.
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  object o;
  o[all] = all;
  array a;
  for (int i = 0; i < 2000; ++i) a.push_back(value(all.substr(static_cast<std::size_t>(i % 256))));
  o["list"] = a;
  o["numbers"] = array{1.0 / 3.0, 1e-320, 123456789.0, std::int64_t{-1}, std::uint64_t{1} << 63};
  value big(o);
  EXPECT_EQ(dump(big), boost::json::serialize(big));
}

// Short strings take a path of their own (copied, then checked 16 bytes at a time where
// they landed): every length around the block size, with each kind of byte that needs an
// escape (and some that do not) at every position, as keys and as values.
TEST(Json, DumpShortStringsLikeBoostJson) {
  const char specials[] = {'"', '\\', '\n', '\0', '\x1f', '\x20', '\x7f', '\x80', '\xff', 'a'};
  for (std::size_t n = 0; n <= 34; ++n) {
    for (char special : specials) {
      for (std::size_t at = 0; at < std::max<std::size_t>(n, 1); ++at) {
        std::string text(n, 'x');
        if (n > 0) text[at] = special;
        object o;
        o[text] = text;
        value v(o);
        ASSERT_EQ(dump(v), boost::json::serialize(v)) << n << " " << at << " " << static_cast<int>(special);
      }
    }
  }
}

}  // namespace kueuepp::json

#include "kube/json/dump_member.hpp"

namespace kueuepp::json {
namespace {

const char* kStored =
    R"({"apiVersion":"v1","metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:status":{".":{}}}}],)"
    R"("resourceVersion":"7"},"status":{"managedFields":1,"x":"\n"}})";

// Without text to reuse: exactly dump(), and the span covers the member's value.
TEST(DumpNotingMember, NotesWhereTheMemberLies) {
  value v = parse(kStored).value();
  TextSpan at;
  std::string text = dump_noting_member(v.as_object(), "metadata", "managedFields", std::nullopt, &at);
  EXPECT_EQ(text, dump(v));
  ASSERT_FALSE(at.empty());
  EXPECT_EQ(at.in(text), dump(v.at("metadata").at("managedFields")));
}

// With the member's own serialization given: the same text, and the same span.
TEST(DumpNotingMember, ReusesTheGivenText) {
  value v = parse(kStored).value();
  const std::string member = dump(v.at("metadata").at("managedFields"));
  TextSpan at;
  std::string text = dump_noting_member(v.as_object(), "metadata", "managedFields", member, &at);
  EXPECT_EQ(text, dump(v));
  EXPECT_EQ(at.in(text), member);
  // What is given is written as is: the caller vouches for it.
  std::string other = dump_noting_member(v.as_object(), "metadata", "managedFields", "[]", nullptr);
  EXPECT_EQ(other, R"({"apiVersion":"v1","metadata":{"name":"a","managedFields":[],"resourceVersion":"7"},)"
                   R"("status":{"managedFields":1,"x":"\n"}})");
}

// Absent member, or an outer member that is not an object: plain dump(), empty span;
// same names elsewhere are not the member.
TEST(DumpNotingMember, AbsentMember) {
  for (const char* text : {R"({"metadata":{"name":"a"},"spec":{"managedFields":[1]}})", R"({"metadata":"x"})",
                           R"({"spec":{"metadata":{"managedFields":[]}}})", R"({})"}) {
    value v = parse(text).value();
    TextSpan at{3, 5};
    EXPECT_EQ(dump_noting_member(v.as_object(), "metadata", "managedFields", "[]", &at), dump(v)) << text;
    EXPECT_TRUE(at.empty()) << text;
  }
}

}  // namespace
}  // namespace kueuepp::json

namespace kueuepp::json {
namespace {

TEST(Json, AQuotedStringIsEscapedAsDumpWritesIt) {
  for (std::string_view text : {std::string_view(""), std::string_view("plain"), std::string_view("q\"b\\s/\n\t\r\b\f"),
                                std::string_view("\x01\x1f\x7f \xc3\xa9"), std::string_view("a\0b", 3)}) {
    std::string quoted = "prefix:";
    append_quoted(quoted, text);
    EXPECT_EQ(quoted, "prefix:" + dump(value(boost::json::string(text)))) << text;
  }
}

}  // namespace
}  // namespace kueuepp::json

namespace kueuepp::json {
namespace {

// Found by the json fuzzer: Boost.JSON 1.81 reads 0e11843300 as NaN and 1e400 as
// infinity, which no JSON can write back (the API server would store a document it
// cannot serve). Refused as Go's encoding/json refuses a number a float64 cannot hold.
TEST(JsonParse, ANumberOutOfRangeIsAnErrorNotANonFiniteValue) {
  for (const char* text : {"[-0.0e11843300]", "1e400", R"({"a":{"b":[1,-2E999]}})"}) {
    auto v = parse(text);
    ASSERT_FALSE(v.has_value()) << text;
    EXPECT_EQ(v.error().message, "invalid JSON: a number is out of range") << text;
  }
  for (const char* text : {"[1e308, -2.5E-3, 0e5]", R"({"name":"e1","v":"1e400"})"}) {
    EXPECT_TRUE(parse(text).has_value()) << text;
  }
}

}  // namespace
}  // namespace kueuepp::json
