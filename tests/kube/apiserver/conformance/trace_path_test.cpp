#include "kube/apiserver/conformance/trace_path.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::conformance {
namespace {

json::value parse(std::string_view text) { return *json::parse(text); }

TracePath path(std::string_view text, PathUse use = PathUse::Ignore) {
  auto p = parse_trace_path(text, use);
  EXPECT_TRUE(p) << text;
  return p ? *p : TracePath{};
}

TEST(TracePath, SplitsOnDotsAndHonoursEscapes) {
  const TracePath p = path(R"(metadata.labels.batch\.kubernetes\.io/job-name)");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[2].key, "batch.kubernetes.io/job-name");
  const TracePath backslash = path(R"(a\\.b)");
  ASSERT_EQ(backslash.size(), 2u);
  EXPECT_EQ(backslash[0].key, "a\\");
  EXPECT_EQ(path("").size(), 0u);
  const TracePath wild = path("**.managedFields");
  EXPECT_EQ(wild[0].kind, PathSegment::Kind::DoubleStar);
  EXPECT_EQ(path("items.*.x")[1].kind, PathSegment::Kind::Star);
}

TEST(TracePath, RejectsMalformedPathsAndMisplacedWildcards) {
  EXPECT_FALSE(parse_trace_path("a..b", PathUse::Ignore));
  EXPECT_FALSE(parse_trace_path(".a", PathUse::Ignore));
  EXPECT_FALSE(parse_trace_path("a.", PathUse::Ignore));
  EXPECT_FALSE(parse_trace_path(R"(a\b)", PathUse::Ignore));
  EXPECT_FALSE(parse_trace_path(R"(a\)", PathUse::Ignore));
  EXPECT_FALSE(parse_trace_path("a.*", PathUse::Exact));
  EXPECT_FALSE(parse_trace_path("**.a", PathUse::Contains));
  EXPECT_TRUE(parse_trace_path("a.*", PathUse::Contains));
}

TEST(TracePath, LooksUpKeysAndIndices) {
  const json::value doc = parse(R"({"a":{"b":[10,{"c":"x"}],"5":"five"},"0":{"1":"obj"}})");
  EXPECT_EQ(lookup(doc, path("a.b.0", PathUse::Exact))->as_int64(), 10);
  EXPECT_EQ(lookup(doc, path("a.b.1.c", PathUse::Exact))->as_string(), "x");
  EXPECT_EQ(lookup(doc, path("a.5", PathUse::Exact))->as_string(), "five");  // decimal key of an object
  EXPECT_EQ(lookup(doc, path("0.1", PathUse::Exact))->as_string(), "obj");
  EXPECT_EQ(lookup(doc, path("a.b.2", PathUse::Exact)), nullptr);
  EXPECT_EQ(lookup(doc, path("a.b.x", PathUse::Exact)), nullptr);
  EXPECT_EQ(lookup(doc, path("a.b.0.z", PathUse::Exact)), nullptr);
  EXPECT_EQ(lookup(doc, path("", PathUse::Exact)), &doc);
}

TEST(TracePath, RemovesKeysArrayElementsAndWildcards) {
  json::value doc = parse(R"({"metadata":{"managedFields":[1],"name":"n"},
    "spec":{"containers":[{"name":"a","image":"i","resources":{}},{"name":"b","resources":{}}],
            "managedFields":{"deep":true}},
    "items":[1,2,3],"managedFields":"top"})");
  remove_matching(doc, path("**.managedFields"));
  remove_matching(doc, path("spec.containers.*.resources"));
  remove_matching(doc, path("items.1"));
  EXPECT_EQ(json::dump(doc),
            R"({"metadata":{"name":"n"},"spec":{"containers":[{"name":"a","image":"i"},{"name":"b"}]},"items":[1,3]})");
}

TEST(TracePath, StarRemovesEveryElementAndTheEmptyPathEverything) {
  json::value doc = parse(R"({"a":[1,2],"b":{"x":1,"y":2},"c":3})");
  remove_matching(doc, path("a.*"));
  remove_matching(doc, path("b.*"));
  EXPECT_EQ(json::dump(doc), R"({"a":[],"b":{},"c":3})");
  remove_matching(doc, path(""));
  EXPECT_TRUE(doc.is_null());
}

TEST(TracePath, DoubleStarMatchesZeroOrMoreSegmentsIncludingInsideArrays) {
  json::value doc = parse(R"({"x":{"k":1,"y":[{"k":2,"z":{"k":3}}]}, "k":0})");
  remove_matching(doc, path("**.k"));
  EXPECT_EQ(json::dump(doc), R"({"x":{"y":[{"z":{}}]}})");
  json::value nested = parse(R"({"a":{"b":{"c":1,"d":2}},"b":{"c":5}})");
  remove_matching(nested, path("**.b.c"));
  EXPECT_EQ(json::dump(nested), R"({"a":{"b":{"d":2}},"b":{}})");
}

TEST(TracePath, RemovingWhatIsNotThereIsHarmless) {
  json::value doc = parse(R"({"a":"scalar","b":[1]})");
  remove_matching(doc, path("a.b.c"));
  remove_matching(doc, path("b.5"));
  remove_matching(doc, path("b.x"));
  remove_matching(doc, path("zz.*"));
  EXPECT_EQ(json::dump(doc), R"({"a":"scalar","b":[1]})");
}

TEST(TracePath, LocationsMatchPatternsSegmentBySegment) {
  const TracePath pattern = path("items.*.resources", PathUse::Contains);
  EXPECT_TRUE(location_matches(pattern, {"items", "3", "resources"}));
  EXPECT_FALSE(location_matches(pattern, {"items", "3"}));
  EXPECT_FALSE(location_matches(pattern, {"items", "3", "verbs"}));
  EXPECT_TRUE(location_matches(path("", PathUse::Contains), {}));
}

TEST(TracePath, RendersPathsInTraceSyntax) {
  EXPECT_EQ(render_path({"metadata", "labels", "batch.kubernetes.io/job-name"}),
            R"(metadata.labels.batch\.kubernetes\.io/job-name)");
  EXPECT_EQ(render_path({}), "(whole body)");
}

}  // namespace
}  // namespace kueuepp::kube::conformance
