// RFC 7386 merge patch: the RFC's own examples, the behaviour trace s07 recorded from a
// real kube-apiserver, and edge cases.

#include <gtest/gtest.h>

#include <string>

#include "kube/apiserver/patch/patch.hpp"
#include "tests/kube/apiserver/patch/test_json.hpp"

namespace kueuepp::kube::patch {
namespace {

using testing::J;
using testing::JsonEq;
using testing::Yields;

/// One merge: target + patch -> result (JSON texts).
struct MergeCase {
  const char* target;
  const char* patch;
  const char* result;
};

// RFC 7386 Appendix A, every row.
class Rfc7386AppendixA : public ::testing::TestWithParam<MergeCase> {};

TEST_P(Rfc7386AppendixA, Row) {
  const auto& c = GetParam();
  EXPECT_TRUE(Yields(merge_patch(J(c.target), J(c.patch)), c.result)) << c.target << " + " << c.patch;
}

TEST_P(Rfc7386AppendixA, RowFromOwnedPatch) {
  const auto& c = GetParam();
  EXPECT_TRUE(Yields(merge_patch(J(c.target), J(c.patch), {}), c.result)) << c.target << " + " << c.patch;
}

TEST_P(Rfc7386AppendixA, RowInPlace) {
  const auto& c = GetParam();
  json::value target = J(c.target);
  ASSERT_TRUE(merge_patch_into(target, J(c.patch)).has_value());
  EXPECT_TRUE(JsonEq(target, J(c.result))) << c.target << " + " << c.patch;
}

INSTANTIATE_TEST_SUITE_P(
    Rfc, Rfc7386AppendixA,
    ::testing::Values(MergeCase{R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
                      MergeCase{R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
                      MergeCase{R"({"a":"b"})", R"({"a":null})", R"({})"},
                      MergeCase{R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
                      MergeCase{R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
                      MergeCase{R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
                      MergeCase{R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
                      MergeCase{R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
                      MergeCase{R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
                      MergeCase{R"({"a":"b"})", R"(["c"])", R"(["c"])"},
                      MergeCase{R"({"a":"foo"})", R"(null)", R"(null)"},
                      MergeCase{R"({"a":"foo"})", R"("bar")", R"("bar")"},
                      MergeCase{R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
                      MergeCase{R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
                      MergeCase{R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"}));

TEST(MergePatch, Rfc7386Section3Example) {
  const auto target = J(R"({"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},
                            "tags":["example","sample"],"content":"This will be unchanged"})");
  const auto patch = J(R"({"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},
                           "tags":["example"]})");
  EXPECT_TRUE(Yields(merge_patch(target, patch),
                     R"({"title":"Hello!","author":{"givenName":"John"},"tags":["example"],
                         "content":"This will be unchanged","phoneNumber":"+01-123-456-7890"})"));
}

// The Job of trace s07 as the server stored it (server-generated labels trimmed).
json::value s07_job() {
  return J(R"({"kind":"Job","apiVersion":"batch/v1",
    "metadata":{"name":"j1","namespace":"ct-s07","generation":1,"labels":{"app":"ct","ct-trace":"s07","tier":"a"}},
    "spec":{"parallelism":1,"completions":1,"backoffLimit":6,"suspend":true,"completionMode":"NonIndexed",
      "template":{"metadata":{"labels":{"app":"ct"}},
        "spec":{"restartPolicy":"Never",
          "containers":[{"name":"c","image":"busybox","command":["sleep","10"]}],
          "tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists"}]}}},
    "status":{}})");
}

TEST(MergePatchTraceS07, LabelAddedAndRemovedWithNull) {
  auto r = merge_patch(s07_job(), J(R"({"metadata":{"labels":{"tier":null,"team":"x"}}})"));
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(testing::At(*r, {"metadata", "labels"}), J(R"({"app":"ct","ct-trace":"s07","team":"x"})")));
  EXPECT_EQ(json::find_path(*r, {"metadata", "labels", "tier"}), nullptr);
  // Nothing else moved.
  EXPECT_TRUE(JsonEq(testing::At(*r, {"spec"}), testing::At(s07_job(), {"spec"})));
}

TEST(MergePatchTraceS07, ScalarSpecChange) {
  auto r = merge_patch(s07_job(), J(R"({"spec":{"parallelism":3}})"));
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_EQ(testing::At(*r, {"spec", "parallelism"}).as_int64(), 3);
  EXPECT_EQ(testing::At(*r, {"spec", "completions"}).as_int64(), 1);
  EXPECT_TRUE(JsonEq(testing::At(*r, {"spec", "template"}), testing::At(s07_job(), {"spec", "template"})));
}

TEST(MergePatchTraceS07, ListsAreReplacedWhole) {
  auto r = merge_patch(s07_job(), J(R"({"spec":{"template":{"spec":{"tolerations":[{"key":"c","operator":"Exists"}]}}}})"));
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(testing::At(*r, {"spec", "template", "spec", "tolerations"}),
                     J(R"([{"key":"c","operator":"Exists"}])")));
  EXPECT_TRUE(JsonEq(testing::At(*r, {"spec", "template", "spec", "containers"}),
                     J(R"([{"name":"c","image":"busybox","command":["sleep","10"]}])")));
}

TEST(MergePatchTraceS07, ResourceVersionInThePatchIsJustAField) {
  // The 409 on a stale resourceVersion is the server's precondition, not the patch's.
  auto r = merge_patch(s07_job(), J(R"({"metadata":{"resourceVersion":"5"},"spec":{"parallelism":4}})"));
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_EQ(json::get_string(testing::At(*r, {"metadata"}), "resourceVersion"), "5");
}

TEST(MergePatchTraceS11, NullFinalizersRemoveTheList) {
  auto r = merge_patch(J(R"({"metadata":{"name":"j1","finalizers":["example.com/hold"]}})"),
                       J(R"({"metadata":{"finalizers":null}})"));
  EXPECT_TRUE(Yields(r, R"({"metadata":{"name":"j1"}})"));
}

TEST(MergePatchTraceS19, NullClearsAStatusMember) {
  auto r = merge_patch(J(R"({"status":{"admission":{"clusterQueue":"cq"},"conditions":[{"type":"A"}]}})"),
                       J(R"({"status":{"admission":null,"conditions":[{"type":"QuotaReserved","status":"False"}]}})"));
  EXPECT_TRUE(Yields(r, R"({"status":{"conditions":[{"type":"QuotaReserved","status":"False"}]}})"));
}

TEST(MergePatch, KeepsTheTargetsMemberOrderAndAppendsNewMembers) {
  auto r = merge_patch(J(R"({"z":1,"a":2,"m":3})"), J(R"({"a":20,"b":4})"));
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_EQ(json::dump(*r), R"({"z":1,"a":20,"m":3,"b":4})");
}

TEST(MergePatch, NullsInsideArraysAreKept) {
  EXPECT_TRUE(Yields(merge_patch(J(R"({})"), J(R"({"a":[null,{"b":null}]})")), R"({"a":[null,{"b":null}]})"));
}

TEST(MergePatch, ObjectReplacesScalarAndDropsItsNulls) {
  EXPECT_TRUE(Yields(merge_patch(J(R"({"a":5})"), J(R"({"a":{"x":1,"y":null}})")), R"({"a":{"x":1}})"));
}

TEST(MergePatch, EmptyPatchChangesNothing) {
  const auto target = s07_job();
  EXPECT_TRUE(Yields(merge_patch(target, J("{}")), json::dump(target)));
}

TEST(MergePatch, NullOfAMissingMemberIsANoOp) {
  EXPECT_TRUE(Yields(merge_patch(J(R"({"a":1})"), J(R"({"b":null,"c":{"d":null}})")), R"({"a":1,"c":{}})"));
}

TEST(MergePatch, TargetIsNotModified) {
  const auto target = J(R"({"a":{"b":1}})");
  const auto copy = target;
  ASSERT_TRUE(testing::Ok(merge_patch(target, J(R"({"a":{"b":null}})"))));
  EXPECT_TRUE(JsonEq(target, copy));
}

TEST(MergePatch, PatchOnANonObjectTargetStartsFromAnEmptyObject) {
  EXPECT_TRUE(Yields(merge_patch(J("null"), J(R"({"a":{"b":null,"c":1}})")), R"({"a":{"c":1}})"));
  EXPECT_TRUE(Yields(merge_patch(J("\"text\""), J(R"({"a":1})")), R"({"a":1})"));
}

TEST(MergePatch, TooDeepPatchIsAnErrorNotACrash) {
  // Built programmatically: the parser would refuse it.
  json::value patch = json::object();
  json::value* cur = &patch;
  for (int i = 0; i < kMaxDepth + 10; ++i) {
    cur->get_object()["k"] = json::object();
    cur = &cur->get_object()["k"];
  }
  auto r = merge_patch(J("{}"), patch);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, PatchError::Kind::BadRequest);
  EXPECT_EQ(r.error().cause, PatchError::Cause::TooDeep);
  EXPECT_EQ(r.error().path.substr(0, 6), "/k/k/k");
}

TEST(MergePatchInPlace, SameResultsAsTheCopyingMerge) {
  const auto patch = J(R"({"metadata":{"labels":{"tier":null,"team":"x"}},"spec":{"template":{"spec":{"tolerations":[]}}}})");
  json::value target = s07_job();
  ASSERT_TRUE(merge_patch_into(target, patch).has_value());
  EXPECT_TRUE(JsonEq(target, *merge_patch(s07_job(), patch)));
}

TEST(MergePatchInPlace, KeepsMemberOrderWhenDeleting) {
  json::value target = J(R"({"a":1,"b":2,"c":3,"d":4})");
  ASSERT_TRUE(merge_patch_into(target, J(R"({"b":null,"e":5})")).has_value());
  EXPECT_EQ(json::dump(target), R"({"a":1,"c":3,"d":4,"e":5})");
}

TEST(MergePatchInPlace, TooDeepIsAnError) {
  json::value patch = json::object();
  json::value* cur = &patch;
  for (int i = 0; i < kMaxDepth + 10; ++i) {
    cur->get_object()["k"] = json::object();
    cur = &cur->get_object()["k"];
  }
  json::value target = json::object();
  auto r = merge_patch_into(target, patch);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().cause, PatchError::Cause::TooDeep);
}

// merge_patch with `omit`: the member at the path is left out unless the patch names it
// (then it merges as usual, null deleting it); everything else is merged exactly as
// without `omit`, member order included.
class MergePatchOmitting : public ::testing::TestWithParam<MergeCase> {};

TEST_P(MergePatchOmitting, MetadataManagedFields) {
  const auto& c = GetParam();
  constexpr std::string_view path[] = {"metadata", "managedFields"};
  const json::value patch = J(c.patch);  // kept by the caller: copied from
  auto r = merge_patch(J(c.target), patch, path);
  ASSERT_TRUE(testing::Ok(r)) << c.patch;
  EXPECT_EQ(json::dump(*r), json::dump(J(c.result))) << c.target << " + " << c.patch;
}

// Taking the patch over (its values moved, not copied) merges alike, member order
// included, and leaves the target as it was.
TEST_P(MergePatchOmitting, FromOwnedPatch) {
  const auto& c = GetParam();
  constexpr std::string_view path[] = {"metadata", "managedFields"};
  const json::value target = J(c.target);
  auto r = merge_patch(target, J(c.patch), path);
  ASSERT_TRUE(testing::Ok(r)) << c.patch;
  EXPECT_EQ(json::dump(*r), json::dump(J(c.result))) << c.target << " + " << c.patch;
  EXPECT_EQ(json::dump(target), json::dump(J(c.target)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MergePatchOmitting,
    ::testing::Values(
        // Not named: left out, whether the patch touches metadata or not.
        MergeCase{R"({"metadata":{"name":"a","managedFields":[{"m":1}],"uid":"u"},"status":{"x":1}})",
                 R"({"status":{"x":2}})", R"({"metadata":{"name":"a","uid":"u"},"status":{"x":2}})"},
        MergeCase{R"({"metadata":{"name":"a","managedFields":[{"m":1}],"uid":"u"}})",
                 R"({"metadata":{"labels":{"k":"v"}}})", R"({"metadata":{"name":"a","uid":"u","labels":{"k":"v"}}})"},
        // Named: merged as the patch says.
        MergeCase{R"({"metadata":{"name":"a","managedFields":[{"m":1}]}})", R"({"metadata":{"managedFields":[]}})",
                 R"({"metadata":{"name":"a","managedFields":[]}})"},
        MergeCase{R"({"metadata":{"name":"a","managedFields":[{"m":1}]}})", R"({"metadata":{"managedFields":null}})",
                 R"({"metadata":{"name":"a"}})"},
        MergeCase{R"({"metadata":{"managedFields":{"a":1,"b":2}}})", R"({"metadata":{"managedFields":{"b":null}}})",
                 R"({"metadata":{"managedFields":{"a":1}}})"},
        // metadata itself replaced or deleted by the patch.
        MergeCase{R"({"metadata":{"name":"a","managedFields":[]},"k":1})", R"({"metadata":null})", R"({"k":1})"},
        MergeCase{R"({"metadata":{"name":"a","managedFields":[]}})", R"({"metadata":"x"})", R"({"metadata":"x"})"},
        // Nothing to omit: a target without the path, or where it is not an object.
        MergeCase{R"({"metadata":"m","s":1})", R"({"s":2})", R"({"metadata":"m","s":2})"},
        MergeCase{R"({"s":1})", R"({"metadata":{"managedFields":[1]}})", R"({"s":1,"metadata":{"managedFields":[1]}})"},
        // Same names elsewhere are kept.
        MergeCase{R"({"spec":{"managedFields":1,"metadata":{"managedFields":2}},"metadata":{"managedFields":3,"z":0}})",
                 R"({"spec":{"x":1}})", R"({"spec":{"managedFields":1,"metadata":{"managedFields":2},"x":1},"metadata":{"z":0}})"}));

TEST(MergePatch, DeepButAllowedNesting) {
  std::string text, close;
  for (int i = 0; i < 200; ++i) {
    text += "{\"k\":";
    close += "}";
  }
  const auto patch = J(text + "null" + close);
  auto r = merge_patch(J("{}"), patch);
  ASSERT_TRUE(testing::Ok(r));
  const json::value* cur = &*r;
  int depth = 0;
  while (const json::value* next = json::find(*cur, "k")) {
    cur = next;
    ++depth;
  }
  EXPECT_EQ(depth, 199);  // the innermost null removed its member
}

TEST(MergePatch, OwnedPatchTooDeep) {
  json::value patch = json::object();
  json::value* cur = &patch;
  for (int i = 0; i < kMaxDepth + 10; ++i) {
    cur->get_object()["k"] = json::object();
    cur = &cur->get_object()["k"];
  }
  auto r = merge_patch(J("{}"), std::move(patch), {});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().cause, PatchError::Cause::TooDeep);
}

// The status patch the API server merges: values nested in objects, arrays of objects
// and strings too long to be stored inline all arrive in the result whole.
TEST(MergePatch, OwnedStatusPatch) {
  const char* patch =
      R"({"status":{"admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","flavors":{"cpu":"default"},"count":2}]},)"
      R"("conditions":[{"type":"QuotaReserved","status":"True","message":"Quota reserved in ClusterQueue cq, round 7"}],"gone":null}})";
  const json::value target = J(R"({"metadata":{"name":"w","managedFields":[{"m":1}]},"status":{"gone":1,"kept":2}})");
  constexpr std::string_view path[] = {"metadata", "managedFields"};
  const json::value kept = J(patch);
  auto copied = merge_patch(target, kept, path);
  auto moved = merge_patch(target, J(patch), path);
  ASSERT_TRUE(testing::Ok(copied));
  ASSERT_TRUE(testing::Ok(moved));
  EXPECT_EQ(json::dump(*moved), json::dump(*copied));
}

}  // namespace
}  // namespace kueuepp::kube::patch
