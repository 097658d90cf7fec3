// RFC 6902 JSON patch: the RFC's Appendix A, RFC 6901 pointers, the error kinds trace s08
// recorded from kube-apiserver, and edge cases.

#include <gtest/gtest.h>

#include <string>

#include "kube/apiserver/patch/patch.hpp"
#include "tests/kube/apiserver/patch/test_json.hpp"

namespace kueuepp::kube::patch {
namespace {

using Kind = PatchError::Kind;
using Cause = PatchError::Cause;
using testing::Fails;
using testing::J;
using testing::Yields;

Expected<json::value, PatchError> apply(std::string_view target, std::string_view ops) {
  return json_patch(J(target), J(ops));
}

// ---- RFC 6902 Appendix A ----

TEST(JsonPatchRfc6902, A1AddingAnObjectMember) {
  EXPECT_TRUE(Yields(apply(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])"),
                     R"({"baz":"qux","foo":"bar"})"));
}

TEST(JsonPatchRfc6902, A2AddingAnArrayElement) {
  EXPECT_TRUE(Yields(apply(R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])"),
                     R"({"foo":["bar","qux","baz"]})"));
}

TEST(JsonPatchRfc6902, A3RemovingAnObjectMember) {
  EXPECT_TRUE(Yields(apply(R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])"), R"({"foo":"bar"})"));
}

TEST(JsonPatchRfc6902, A4RemovingAnArrayElement) {
  EXPECT_TRUE(Yields(apply(R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])"),
                     R"({"foo":["bar","baz"]})"));
}

TEST(JsonPatchRfc6902, A5ReplacingAValue) {
  EXPECT_TRUE(Yields(apply(R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])"),
                     R"({"baz":"boo","foo":"bar"})"));
}

TEST(JsonPatchRfc6902, A6MovingAValue) {
  EXPECT_TRUE(Yields(apply(R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
                           R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])"),
                     R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"));
}

TEST(JsonPatchRfc6902, A7MovingAnArrayElement) {
  EXPECT_TRUE(Yields(apply(R"({"foo":["all","grass","cows","eat"]})", R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])"),
                     R"({"foo":["all","cows","eat","grass"]})"));
}

TEST(JsonPatchRfc6902, A8TestingAValueSuccess) {
  EXPECT_TRUE(Yields(apply(R"({"baz":"qux","foo":["a",2,"c"]})",
                           R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])"),
                     R"({"baz":"qux","foo":["a",2,"c"]})"));
}

TEST(JsonPatchRfc6902, A9TestingAValueError) {
  EXPECT_TRUE(Fails(apply(R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])"), Kind::Invalid,
                    Cause::TestFailed));
}

TEST(JsonPatchRfc6902, A10AddingANestedMemberObject) {
  EXPECT_TRUE(Yields(apply(R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])"),
                     R"({"foo":"bar","child":{"grandchild":{}}})"));
}

TEST(JsonPatchRfc6902, A11IgnoringUnrecognizedElements) {
  EXPECT_TRUE(Yields(apply(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])"),
                     R"({"foo":"bar","baz":"qux"})"));
}

TEST(JsonPatchRfc6902, A12AddingToANonexistentTarget) {
  EXPECT_TRUE(Fails(apply(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])"), Kind::Invalid,
                    Cause::PathNotFound));
}

TEST(JsonPatchRfc6902, A14EscapeOrdering) {
  EXPECT_TRUE(Yields(apply(R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])"), R"({"/":9,"~1":10})"));
}

TEST(JsonPatchRfc6902, A15ComparingStringsAndNumbers) {
  EXPECT_TRUE(Fails(apply(R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])"), Kind::Invalid,
                    Cause::TestFailed));
}

TEST(JsonPatchRfc6902, A16AddingAnArrayValue) {
  EXPECT_TRUE(Yields(apply(R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])"),
                     R"({"foo":["bar",["abc","def"]]})"));
}

// ---- RFC 6901 section 5: every example pointer ----

struct PointerCase {
  const char* pointer;
  const char* value;
};

class Rfc6901Pointers : public ::testing::TestWithParam<PointerCase> {};

TEST_P(Rfc6901Pointers, TestOperationFindsTheValue) {
  const auto doc = R"({"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8})";
  json::array ops;
  ops.push_back(json::object{{"op", "test"}, {"path", GetParam().pointer}, {"value", J(GetParam().value)}});
  EXPECT_TRUE(testing::Ok(json_patch(J(doc), json::value(ops)))) << GetParam().pointer;
}

INSTANTIATE_TEST_SUITE_P(Rfc, Rfc6901Pointers,
                         ::testing::Values(PointerCase{"/foo", R"(["bar","baz"])"}, PointerCase{"/foo/0", R"("bar")"},
                                           PointerCase{"/", "0"}, PointerCase{"/a~1b", "1"}, PointerCase{"/c%d", "2"},
                                           PointerCase{"/e^f", "3"}, PointerCase{"/g|h", "4"},
                                           PointerCase{"/i\\j", "5"}, PointerCase{"/k\"l", "6"},
                                           PointerCase{"/ ", "7"}, PointerCase{"/m~0n", "8"}));

TEST(JsonPatchPointer, EmptyPointerIsTheWholeDocument) {
  EXPECT_TRUE(Yields(apply(R"({"a":1})", R"([{"op":"test","path":"","value":{"a":1}}])"), R"({"a":1})"));
  EXPECT_TRUE(Yields(apply(R"({"a":1})", R"([{"op":"replace","path":"","value":[1]}])"), R"([1])"));
  EXPECT_TRUE(Yields(apply(R"({"a":1})", R"([{"op":"add","path":"","value":{"b":2}}])"), R"({"b":2})"));
}

TEST(JsonPatchPointer, InvalidPointers) {
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"test","path":"a","value":1}])"), Kind::Invalid, Cause::Malformed));
  EXPECT_TRUE(Fails(apply(R"({"a~b":1})", R"([{"op":"test","path":"/a~b","value":1}])"), Kind::Invalid,
                    Cause::Malformed));
  EXPECT_TRUE(Fails(apply(R"({"a~":1})", R"([{"op":"test","path":"/a~","value":1}])"), Kind::Invalid,
                    Cause::Malformed));
}

// ---- trace s08: what kube-apiserver answered ----

json::value s08_job() {
  return J(R"({"kind":"Job","apiVersion":"batch/v1",
    "metadata":{"name":"j1","namespace":"ct-s08","resourceVersion":"100","labels":{"app":"ct","ct-trace":"s08"}},
    "spec":{"parallelism":1,"completions":1,"suspend":true,
      "template":{"spec":{"containers":[{"name":"c","image":"busybox"}],"restartPolicy":"Never"}}}})");
}

TEST(JsonPatchTraceS08, AddLabelAndReplaceParallelism) {
  auto r = json_patch(s08_job(), J(R"([{"op":"add","path":"/metadata/labels/tier","value":"b"},
                                       {"op":"replace","path":"/spec/parallelism","value":2}])"));
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(testing::JsonEq(testing::At(*r, {"metadata", "labels"}), J(R"({"app":"ct","ct-trace":"s08","tier":"b"})")));
  EXPECT_EQ(testing::At(*r, {"spec", "parallelism"}).as_int64(), 2);
}

TEST(JsonPatchTraceS08, PassingTestThenReplace) {
  auto r = json_patch(s08_job(), J(R"([{"op":"test","path":"/spec/parallelism","value":1},
                                       {"op":"replace","path":"/spec/parallelism","value":3}])"));
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_EQ(testing::At(*r, {"spec", "parallelism"}).as_int64(), 3);
}

TEST(JsonPatchTraceS08, FailingTestIs422AndNothingChanges) {
  const auto job = s08_job();
  auto r = json_patch(job, J(R"([{"op":"test","path":"/spec/parallelism","value":99},
                                 {"op":"replace","path":"/spec/parallelism","value":5}])"));
  EXPECT_TRUE(Fails(r, Kind::Invalid, Cause::TestFailed));
  EXPECT_EQ(r.error().path, "/spec/parallelism");
  EXPECT_NE(r.error().message.find("/spec/parallelism"), std::string::npos);
  EXPECT_TRUE(testing::JsonEq(job, s08_job()));
}

TEST(JsonPatchTraceS08, TestOnAStaleResourceVersionIs422) {
  EXPECT_TRUE(Fails(json_patch(s08_job(), J(R"([{"op":"test","path":"/metadata/resourceVersion","value":"99"},
                                                {"op":"replace","path":"/spec/parallelism","value":5}])")),
                    Kind::Invalid, Cause::TestFailed));
  EXPECT_TRUE(testing::Ok(json_patch(s08_job(), J(R"([{"op":"test","path":"/metadata/resourceVersion","value":"100"},
                                                      {"op":"replace","path":"/spec/parallelism","value":5}])"))));
}

TEST(JsonPatchTraceS08, RemovingAMissingPathIs422AndDistinctFromATestFailure) {
  auto r = json_patch(s08_job(), J(R"([{"op":"remove","path":"/metadata/labels/nope"}])"));
  EXPECT_TRUE(Fails(r, Kind::Invalid, Cause::PathNotFound));
  EXPECT_EQ(r.error().path, "/metadata/labels/nope");
}

TEST(JsonPatchTraceS08, RemovingALabel) {
  auto r = json_patch(J(R"({"metadata":{"labels":{"app":"ct","tier":"b"}}})"),
                      J(R"([{"op":"remove","path":"/metadata/labels/tier"}])"));
  EXPECT_TRUE(Yields(r, R"({"metadata":{"labels":{"app":"ct"}}})"));
}

TEST(JsonPatchTraceS08, ADocumentThatIsNotAnArrayIs400) {
  EXPECT_TRUE(Fails(json_patch(s08_job(), J(R"({"op":"add","path":"/metadata/labels/x","value":"y"})")),
                    Kind::BadRequest, Cause::Malformed));
}

// ---- decoding errors (400) vs application errors (422) ----

TEST(JsonPatchDecoding, OperationsMustBeObjects) {
  EXPECT_TRUE(Fails(apply("{}", "[1]"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":"test","path":"","value":{}},"x"])"), Kind::BadRequest, Cause::Malformed));
}

TEST(JsonPatchDecoding, OpPathFromMustBeStrings) {
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":1,"path":"/a","value":1}])"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":"add","path":["a"],"value":1}])"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":"copy","from":2,"path":"/a"}])"), Kind::BadRequest, Cause::Malformed));
}

TEST(JsonPatchDecoding, DecodingErrorsWinOverEarlierApplicationErrors) {
  // kube-apiserver decodes the whole document before applying anything.
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":"remove","path":"/missing"},{"op":7}])"), Kind::BadRequest, Cause::Malformed));
}

TEST(JsonPatchDecoding, EmptyPatchIsANoOp) { EXPECT_TRUE(Yields(apply(R"({"a":1})", "[]"), R"({"a":1})")); }

TEST(JsonPatchApplication, MissingOrUnknownOperation) {
  EXPECT_TRUE(Fails(apply("{}", R"([{"path":"/a","value":1}])"), Kind::Invalid, Cause::Malformed));
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":"merge","path":"/a","value":1}])"), Kind::Invalid, Cause::Malformed));
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":"ADD","path":"/a","value":1}])"), Kind::Invalid, Cause::Malformed));
}

TEST(JsonPatchApplication, MissingMembers) {
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":"add","value":1}])"), Kind::Invalid, Cause::Malformed));
  EXPECT_TRUE(Fails(apply("{}", R"([{"op":"add","path":"/a"}])"), Kind::Invalid, Cause::Malformed));
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"replace","path":"/a"}])"), Kind::Invalid, Cause::Malformed));
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"test","path":"/a"}])"), Kind::Invalid, Cause::Malformed));
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"move","path":"/b"}])"), Kind::Invalid, Cause::Malformed));
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"copy","path":"/b"}])"), Kind::Invalid, Cause::Malformed));
}

TEST(JsonPatchApplication, NullIsAValidValue) {
  EXPECT_TRUE(Yields(apply(R"({"a":1})", R"([{"op":"replace","path":"/a","value":null}])"), R"({"a":null})"));
  EXPECT_TRUE(Yields(apply(R"({"a":null})", R"([{"op":"test","path":"/a","value":null}])"), R"({"a":null})"));
}

TEST(JsonPatchApplication, AddReplacesAnExistingMember) {
  EXPECT_TRUE(Yields(apply(R"({"a":1})", R"([{"op":"add","path":"/a","value":2}])"), R"({"a":2})"));
}

TEST(JsonPatchApplication, ReplaceAndTestNeedAnExistingTarget) {
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])"), Kind::Invalid,
                    Cause::PathNotFound));
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"test","path":"/b","value":null}])"), Kind::Invalid,
                    Cause::PathNotFound));
}

TEST(JsonPatchApplication, ArrayIndexes) {
  EXPECT_TRUE(Yields(apply(R"([1,2])", R"([{"op":"add","path":"/2","value":3}])"), "[1,2,3]"));
  EXPECT_TRUE(Yields(apply(R"([1,2])", R"([{"op":"add","path":"/0","value":0}])"), "[0,1,2]"));
  EXPECT_TRUE(Yields(apply(R"([1,2])", R"([{"op":"add","path":"/-","value":3}])"), "[1,2,3]"));
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"add","path":"/3","value":3}])"), Kind::Invalid,
                    Cause::IndexOutOfRange));
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"remove","path":"/2"}])"), Kind::Invalid, Cause::IndexOutOfRange));
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"replace","path":"/-","value":1}])"), Kind::Invalid,
                    Cause::PathNotFound));
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"remove","path":"/-"}])"), Kind::Invalid, Cause::PathNotFound));
}

TEST(JsonPatchApplication, Rfc6901IndexSyntaxIsStrict) {
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"test","path":"/01","value":2}])"), Kind::Invalid, Cause::PathNotFound));
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"test","path":"/-1","value":2}])"), Kind::Invalid, Cause::PathNotFound));
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"test","path":"/+1","value":2}])"), Kind::Invalid, Cause::PathNotFound));
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"test","path":"/1e0","value":2}])"), Kind::Invalid, Cause::PathNotFound));
  EXPECT_TRUE(Fails(apply(R"([1,2])", R"([{"op":"test","path":"/","value":2}])"), Kind::Invalid, Cause::PathNotFound));
}

TEST(JsonPatchApplication, HugeIndexesAreErrors) {
  EXPECT_TRUE(Fails(apply(R"([1])", R"([{"op":"add","path":"/18446744073709551615","value":1}])"), Kind::Invalid,
                    Cause::IndexOutOfRange));
  EXPECT_TRUE(Fails(apply(R"([1])", R"([{"op":"add","path":"/99999999999999999999999999","value":1}])"), Kind::Invalid,
                    Cause::PathNotFound));
  EXPECT_TRUE(Fails(apply(R"([1])", R"([{"op":"remove","path":"/9223372036854775808"}])"), Kind::Invalid,
                    Cause::IndexOutOfRange));
}

TEST(JsonPatchApplication, PathsThroughScalars) {
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"add","path":"/a/b","value":1}])"), Kind::Invalid,
                    Cause::NotAContainer));
  EXPECT_TRUE(Fails(apply(R"({"a":"s"})", R"([{"op":"test","path":"/a/0","value":"s"}])"), Kind::Invalid,
                    Cause::NotAContainer));
}

TEST(JsonPatchApplication, RemovingTheWholeDocumentIsRefused) {
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"remove","path":""}])"), Kind::Invalid, Cause::Malformed));
}

TEST(JsonPatchApplication, MoveIntoItsOwnChildIsRefused) {
  EXPECT_TRUE(Fails(apply(R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/c"}])"), Kind::Invalid,
                    Cause::Malformed));
}

TEST(JsonPatchApplication, MoveToItselfIsANoOpButTheSourceMustExist) {
  EXPECT_TRUE(Yields(apply(R"({"a":1})", R"([{"op":"move","from":"/a","path":"/a"}])"), R"({"a":1})"));
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"move","from":"/b","path":"/b"}])"), Kind::Invalid,
                    Cause::PathNotFound));
}

TEST(JsonPatchApplication, MoveFromAMissingPath) {
  EXPECT_TRUE(Fails(apply(R"({"a":1})", R"([{"op":"move","from":"/x","path":"/y"}])"), Kind::Invalid,
                    Cause::PathNotFound));
}

TEST(JsonPatchApplication, CopyIsDeepAndIndependent) {
  EXPECT_TRUE(Yields(apply(R"({"a":{"b":[1]}})", R"([{"op":"copy","from":"/a","path":"/c"},
                                                     {"op":"add","path":"/c/b/-","value":2}])"),
                     R"({"a":{"b":[1]},"c":{"b":[1,2]}})"));
}

TEST(JsonPatchApplication, CopyIntoItsOwnChildIsAllowed) {
  EXPECT_TRUE(Yields(apply(R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/a/c"}])"),
                     R"({"a":{"b":1,"c":{"b":1}}})"));
}

TEST(JsonPatchApplication, TestComparesNumbersByValueAndObjectsUnordered) {
  EXPECT_TRUE(testing::Ok(apply(R"({"a":1})", R"([{"op":"test","path":"/a","value":1.0}])")));
  EXPECT_TRUE(testing::Ok(apply(R"({"a":{"x":1,"y":2}})", R"([{"op":"test","path":"/a","value":{"y":2,"x":1}}])")));
  EXPECT_TRUE(Fails(apply(R"({"a":[1,2]})", R"([{"op":"test","path":"/a","value":[2,1]}])"), Kind::Invalid,
                    Cause::TestFailed));
  EXPECT_TRUE(Fails(apply(R"({"a":{"x":1}})", R"([{"op":"test","path":"/a","value":{"x":1,"y":null}}])"),
                    Kind::Invalid, Cause::TestFailed));
  EXPECT_TRUE(Fails(apply(R"({"a":true})", R"([{"op":"test","path":"/a","value":1}])"), Kind::Invalid,
                    Cause::TestFailed));
}

TEST(JsonPatchApplication, AllOrNothing) {
  const auto target = J(R"({"a":1})");
  auto r = json_patch(target, J(R"([{"op":"replace","path":"/a","value":2},{"op":"remove","path":"/zzz"}])"));
  EXPECT_TRUE(Fails(r, Kind::Invalid, Cause::PathNotFound));
  EXPECT_TRUE(testing::JsonEq(target, J(R"({"a":1})")));
}

TEST(JsonPatchApplication, OperationsApplyInOrder) {
  EXPECT_TRUE(Yields(apply(R"({})", R"([{"op":"add","path":"/a","value":[]},{"op":"add","path":"/a/-","value":1},
                                        {"op":"add","path":"/a/0","value":0},{"op":"move","from":"/a","path":"/b"}])"),
                     R"({"b":[0,1]})"));
}

TEST(JsonPatchApplication, ErrorMessagesNameTheOperationAndPath) {
  auto r = apply(R"({"a":1})", R"([{"op":"test","path":"/a","value":1},{"op":"remove","path":"/b/c"}])");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("operation 1"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("/b/c"), std::string::npos) << r.error().message;
}

TEST(JsonPatchApplication, RemoveKeepsMemberOrder) {
  auto r = apply(R"({"a":1,"b":2,"c":3,"d":4})", R"([{"op":"remove","path":"/b"}])");
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_EQ(json::dump(*r), R"({"a":1,"c":3,"d":4})");
}

}  // namespace
}  // namespace kueuepp::kube::patch
