// Strategic merge patch: trace s09 (a real kube-apiserver patching a Job), the behaviour
// of k8s.io/apimachinery's strategicpatch on its own "mergeItem" test type (the expected
// results below are the ones its test suite asserts), the directives kubectl sends, and
// malformed patches.

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

// upstream's test type: mergingList (merge by name), mergingIntList (merge, primitives),
// retainKeysMergingList (merge by name), everything else replaced; nested at any depth.
ListStrategy merge_item_strategy(FieldPath path) {
  const std::string& last = path.back();
  if (last == "mergingList" || last == "retainKeysMergingList") return {ListStrategy::Kind::Map, {"name"}};
  if (last == "mergingIntList") return {ListStrategy::Kind::Set, {}};
  return {};
}

Expected<json::value, PatchError> smp(std::string_view original, std::string_view patch) {
  return strategic_merge_patch(J(original), J(patch), merge_item_strategy);
}

// ---- trace s09: kube-apiserver's answers to kubectl-style patches of a Job ----

json::value s09_job() {
  return J(R"({"kind":"Job","apiVersion":"batch/v1",
    "metadata":{"name":"j1","namespace":"ct-s09","generation":1,"labels":{"app":"ct","ct-trace":"s09"}},
    "spec":{"parallelism":1,"completions":1,"backoffLimit":6,"suspend":true,"completionMode":"NonIndexed",
      "template":{"metadata":{"labels":{"app":"ct"}},
        "spec":{"restartPolicy":"Never","nodeSelector":{"a":"1","b":"2"},
          "containers":[{"name":"c","image":"busybox","command":["sleep","10"],"imagePullPolicy":"Always"}],
          "tolerations":[{"key":"k1","operator":"Exists"}]}}},
    "status":{}})");
}

Expected<json::value, PatchError> job_smp(const json::value& job, std::string_view patch) {
  return strategic_merge_patch(job, J(patch), builtin_list_strategies("batch", "Job"));
}

TEST(StrategicMergeTraceS09, NodeSelectorMergesWithNullDeleteAndTolerationsAreReplaced) {
  auto r = job_smp(s09_job(), R"({"spec":{"template":{"spec":{"nodeSelector":{"b":null,"c":"3"},
      "tolerations":[{"key":"k2","operator":"Equal","value":"v","effect":"NoExecute"}]}}}})");
  ASSERT_TRUE(testing::Ok(r));
  const json::value& spec = testing::At(*r, {"spec", "template", "spec"});
  EXPECT_TRUE(testing::JsonEq(testing::At(spec, {"nodeSelector"}), J(R"({"a":"1","c":"3"})")));
  EXPECT_TRUE(testing::JsonEq(testing::At(spec, {"tolerations"}),
                              J(R"([{"key":"k2","operator":"Equal","value":"v","effect":"NoExecute"}])")));
  EXPECT_TRUE(testing::JsonEq(testing::At(spec, {"containers"}), testing::At(s09_job(), {"spec", "template", "spec", "containers"})));
}

TEST(StrategicMergeTraceS09, LabelsAndTemplateAnnotations) {
  auto r = job_smp(s09_job(), R"({"metadata":{"labels":{"kueue.x-k8s.io/queue-name":"lq"}},
                                  "spec":{"template":{"metadata":{"annotations":{"x":"y"}}}}})");
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(testing::JsonEq(testing::At(*r, {"metadata", "labels"}),
                              J(R"({"app":"ct","ct-trace":"s09","kueue.x-k8s.io/queue-name":"lq"})")));
  EXPECT_TRUE(testing::JsonEq(testing::At(*r, {"spec", "template", "metadata"}),
                              J(R"({"labels":{"app":"ct"},"annotations":{"x":"y"}})")));
}

TEST(StrategicMergeTraceS09, ContainersMergeByName) {
  // kube-apiserver then refuses the result (the template of a Job is immutable): that is
  // validation, the merge itself keeps the container's other fields.
  auto r = job_smp(s09_job(), R"({"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}}})");
  EXPECT_TRUE(testing::Ok(r));
  EXPECT_TRUE(testing::JsonEq(testing::At(*r, {"spec", "template", "spec", "containers"}),
                              J(R"([{"name":"c","image":"busybox:2","command":["sleep","10"],"imagePullPolicy":"Always"}])")));
}

TEST(StrategicMergeTraceS09, UnsuspendAndScale) {
  auto r = job_smp(s09_job(), R"({"spec":{"suspend":false,"parallelism":2}})");
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_FALSE(testing::At(*r, {"spec", "suspend"}).as_bool());
  EXPECT_EQ(testing::At(*r, {"spec", "parallelism"}).as_int64(), 2);
  EXPECT_EQ(testing::At(*r, {"spec", "completions"}).as_int64(), 1);
}

// ---- upstream's own expectations (k8s.io/apimachinery strategicpatch tests) ----

TEST(StrategicMergeUpstream, UniqueScalarsWhenMergingLists) {
  EXPECT_TRUE(Yields(smp(R"({"mergingIntList":[1,2]})", R"({"mergingIntList":[2,3]})"), R"({"mergingIntList":[1,2,3]})"));
}

TEST(StrategicMergeUpstream, DeleteMapFromNestedMap) {
  EXPECT_TRUE(Yields(smp(R"({"simpleMap":{"key1":1,"key2":1}})", R"({"simpleMap":{"$patch":"delete"}})"),
                     R"({"simpleMap":{}})"));
}

TEST(StrategicMergeUpstream, DeleteAllItemsFromMergingList) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1},{"name":2}]})", R"({"mergingList":[{"$patch":"replace"}]})"),
                     R"({"mergingList":[]})"));
}

TEST(StrategicMergeUpstream, MergeEmptyMergingLists) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[]})", R"({"mergingList":[]})"), R"({"mergingList":[]})"));
}

TEST(StrategicMergeUpstream, DeleteAllKeysFromMap) {
  EXPECT_TRUE(Yields(smp(R"({"name":1,"value":1})", R"({"$patch":"replace"})"), R"({})"));
}

TEST(StrategicMergeUpstream, AddKeyAndDeleteAllKeysFromMap) {
  EXPECT_TRUE(Yields(smp(R"({"name":1,"value":1})", R"({"other":"a","$patch":"replace"})"), R"({"other":"a"})"));
}

TEST(StrategicMergeUpstream, DeleteAllDuplicateEntriesInAMergingList) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1},{"name":1},{"name":2,"value":"a"},{"name":3},{"name":3}]})",
                         R"({"mergingList":[{"name":1,"$patch":"delete"},{"name":3,"$patch":"delete"}]})"),
                     R"({"mergingList":[{"name":2,"value":"a"}]})"));
}

TEST(StrategicMergeUpstream, RetainKeysMapWithoutDirectiveMerges) {
  EXPECT_TRUE(Yields(smp(R"({"retainKeysMap":{"name":"foo"}})", R"({"retainKeysMap":{"value":"bar"}})"),
                     R"({"retainKeysMap":{"name":"foo","value":"bar"}})"));
  EXPECT_TRUE(Yields(smp(R"({"retainKeysMap":{"name":"foo","value":"a"}})", R"({"retainKeysMap":{"value":null}})"),
                     R"({"retainKeysMap":{"name":"foo"}})"));
  EXPECT_TRUE(Yields(smp(R"({"retainKeysMap":{"name":"foo","value":"a"}})", R"({"retainKeysMap":{}})"),
                     R"({"retainKeysMap":{"name":"foo","value":"a"}})"));
}

TEST(StrategicMergeUpstream, RetainKeysClearsDefaultedField) {
  EXPECT_TRUE(Yields(smp(R"({"retainKeysMap":{"value":"foo"}})", R"({"retainKeysMap":{"$retainKeys":["other"],"other":"bar"}})"),
                     R"({"retainKeysMap":{"other":"bar"}})"));
}

TEST(StrategicMergeUpstream, RetainKeysDiscriminatedUnion) {
  EXPECT_TRUE(Yields(smp(R"({"retainKeysMap":{"name":"type1","value":"foo"}})",
                         R"({"retainKeysMap":{"$retainKeys":["name","other"],"name":"type2","other":"bar"}})"),
                     R"({"retainKeysMap":{"name":"type2","other":"bar"}})"));
}

TEST(StrategicMergeUpstream, RetainKeysAddsAFieldAndClearsAnother) {
  EXPECT_TRUE(Yields(smp(R"({"retainKeysMap":{"name":"foo","other":"a"}})",
                         R"({"retainKeysMap":{"$retainKeys":["name","value"],"value":"bar"}})"),
                     R"({"retainKeysMap":{"name":"foo","value":"bar"}})"));
}

TEST(StrategicMergeUpstream, RetainKeysInAListOfMaps) {
  EXPECT_TRUE(Yields(smp(R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a","other":"x"}]})",
                         R"({"$setElementOrder/retainKeysMergingList":[{"name":"bar"},{"name":"foo"}],
                             "retainKeysMergingList":[{"$retainKeys":["name","value"],"name":"foo"}]})"),
                     R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]})"));
}

TEST(StrategicMergeUpstream, PreserveTheOrderFromThePatch) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
                         R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},{"name":2,"other":"x"}]})"),
                     R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"},{"name":2,"value":"b","other":"x"}]})"));
}

TEST(StrategicMergeUpstream, PreserveTheOrderFromThePatchWithServerOnlyItems) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1},{"name":2,"value":"b"},{"name":3}]})",
                         R"({"mergingList":[{"name":3,"value":"c"},{"name":1,"value":"a"}]})"),
                     R"({"mergingList":[{"name":2,"value":"b"},{"name":3,"value":"c"},{"name":1,"value":"a"}]})"));
}

TEST(StrategicMergeUpstream, PreserveTheOrderFromThePatchInAnIntList) {
  EXPECT_TRUE(Yields(smp(R"({"mergingIntList":[1,2,3]})", R"({"mergingIntList":[3,1,2]})"), R"({"mergingIntList":[3,1,2]})"));
}

TEST(StrategicMergeUpstream, NewItemsWithoutAnOrderComeBeforeLiveOnlyItems) {
  // mergeSortedSlice: a patch item that is not live is placed before the live-only items.
  EXPECT_TRUE(Yields(smp(R"({"mergingIntList":[1,2]})", R"({"mergingIntList":[3]})"), R"({"mergingIntList":[3,1,2]})"));
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":"a"},{"name":"b"}]})", R"({"mergingList":[{"name":"c"}]})"),
                     R"({"mergingList":[{"name":"c"},{"name":"a"},{"name":"b"}]})"));
}

TEST(StrategicMergeUpstream, SetElementOrderAddsAnItem) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})",
                         R"({"$setElementOrder/mergingList":[{"name":3},{"name":1},{"name":2}],
                             "mergingList":[{"name":3,"value":3}]})"),
                     R"({"mergingList":[{"name":3,"value":3},{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})"));
}

TEST(StrategicMergeUpstream, SetElementOrderAddsSeveralItems) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"}]})",
                         R"({"$setElementOrder/mergingList":[{"name":1},{"name":4},{"name":2},{"name":3}],
                             "mergingList":[{"name":4,"value":4},{"name":3,"value":3}]})"),
                     R"({"mergingList":[{"name":1,"other":"a"},{"name":4,"value":4},{"name":2,"value":2,"other":"b"},
                                        {"name":3,"value":3}]})"));
}

TEST(StrategicMergeUpstream, SetElementOrderWithADeletion) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2,"other":"b"},{"name":3,"value":3}]})",
                         R"({"$setElementOrder/mergingList":[{"name":2},{"name":1}],
                             "mergingList":[{"name":3,"$patch":"delete"}]})"),
                     R"({"mergingList":[{"name":2,"value":2,"other":"b"},{"name":1,"other":"a"}]})"));
}

TEST(StrategicMergeUpstream, SetElementOrderAloneReorders) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1,"other":"a"},{"name":3,"value":3},{"name":4,"value":4},{"name":2,"value":2}]})",
                         R"({"$setElementOrder/mergingList":[{"name":4},{"name":2},{"name":3},{"name":1}]})"),
                     R"({"mergingList":[{"name":4,"value":4},{"name":2,"value":2},{"name":3,"value":3},{"name":1,"other":"a"}]})"));
}

TEST(StrategicMergeUpstream, SetElementOrderKeepsServerOnlyItemsInPlace) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1,"other":"a"},{"name":3,"value":3},{"name":4,"value":4},{"name":2,"value":2},{"name":9}]})",
                         R"({"$setElementOrder/mergingList":[{"name":4},{"name":2},{"name":3},{"name":1}]})"),
                     R"({"mergingList":[{"name":4,"value":4},{"name":2,"value":2},{"name":3,"value":3},{"name":1,"other":"a"},{"name":9}]})"));
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1,"other":"a"},{"name":2,"value":2},{"name":9},{"name":3,"value":3},{"name":4,"value":4}]})",
                         R"({"$setElementOrder/mergingList":[{"name":2},{"name":1},{"name":4},{"name":3}]})"),
                     R"({"mergingList":[{"name":2,"value":2},{"name":1,"other":"a"},{"name":9},{"name":4,"value":4},{"name":3,"value":3}]})"));
}

TEST(StrategicMergeUpstream, SetElementOrderNamingAbsentItems) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1},{"name":3}]})",
                         R"({"$setElementOrder/mergingList":[{"name":3},{"name":2},{"name":1}],
                             "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})"),
                     R"({"mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})"));
  EXPECT_TRUE(Yields(smp(R"({"mergingIntList":[1,3]})", R"({"$setElementOrder/mergingIntList":[3,2,1]})"),
                     R"({"mergingIntList":[3,1]})"));
}

TEST(StrategicMergeUpstream, SetElementOrderMustAgreeWithThePatchList) {
  EXPECT_TRUE(Fails(smp(R"({"mergingList":[{"name":1},{"name":3},{"name":2}]})",
                        R"({"$setElementOrder/mergingList":[{"name":1},{"name":2},{"name":3}],
                            "mergingList":[{"name":3,"value":3},{"name":1,"value":1}]})"),
                    Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(smp(R"({"mergingIntList":[1,3,2]})",
                        R"({"$setElementOrder/mergingIntList":[1,2,3],"mergingIntList":[3,1]})"),
                    Kind::BadRequest, Cause::Malformed));
}

TEST(StrategicMergeUpstream, MissingMergeKeyIsAnError) {
  auto r = smp(R"({"mergingList":[{"name":1,"value":"a"}]})", R"({"mergingList":[{"value":"b"}]})");
  EXPECT_TRUE(Fails(r, Kind::Invalid, Cause::MergeFailed));
  EXPECT_NE(r.error().message.find("merge key"), std::string::npos);
  EXPECT_EQ(r.error().path, ".mergingList");
}

TEST(StrategicMergeUpstream, DeleteFromPrimitiveList) {
  EXPECT_TRUE(Yields(smp(R"({"mergingIntList":[1,2]})", R"({"$deleteFromPrimitiveList/mergingIntList":[3]})"),
                     R"({"mergingIntList":[1,2]})"));
  EXPECT_TRUE(Yields(smp(R"({"mergingIntList":null})", R"({"$deleteFromPrimitiveList/mergingIntList":[3]})"),
                     R"({"mergingIntList":null})"));
  EXPECT_TRUE(Yields(smp(R"({"foo":["bar"]})", R"({"$deleteFromPrimitiveList/mergingIntList":[3]})"), R"({"foo":["bar"]})"));
  EXPECT_TRUE(Yields(smp(R"({"mergingIntList":[1,2,3]})", R"({"$deleteFromPrimitiveList/mergingIntList":[2]})"),
                     R"({"mergingIntList":[1,3]})"));
  // Delete lists apply whatever the list's strategy is.
  EXPECT_TRUE(Yields(smp(R"({"nonMergingIntList":[1,2,3]})", R"({"$deleteFromPrimitiveList/nonMergingIntList":[2]})"),
                     R"({"nonMergingIntList":[1,3]})"));
}

// ---- the rest of the semantics ----

TEST(StrategicMerge, NonMergingListsAreReplaced) {
  EXPECT_TRUE(Yields(smp(R"({"nonMergingList":[{"name":1,"a":1},{"name":2}]})", R"({"nonMergingList":[{"name":1,"b":2}]})"),
                     R"({"nonMergingList":[{"name":1,"b":2}]})"));
}

TEST(StrategicMerge, ReplacedListsAreStoredClean) {
  EXPECT_TRUE(Yields(smp(R"({"nonMergingList":[{"name":1}]})", R"({"nonMergingList":[{"name":2,"v":null},{"$patch":"replace"}]})"),
                     R"({"nonMergingList":[{"name":2}]})"));
}

TEST(StrategicMerge, NullDeletesAndNestedMapsMerge) {
  EXPECT_TRUE(Yields(smp(R"({"a":{"b":1,"c":{"d":1,"e":2}},"f":1})", R"({"a":{"b":null,"c":{"e":3,"g":4}},"f":null})"),
                     R"({"a":{"c":{"d":1,"e":3,"g":4}}})"));
}

TEST(StrategicMerge, MergingListElementsMergeRecursively) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":"a","mergingList":[{"name":"x","v":1}],"m":{"k":1}}]})",
                         R"({"mergingList":[{"name":"a","mergingList":[{"name":"y","v":2}],"m":{"k":null,"j":2}}]})"),
                     R"({"mergingList":[{"name":"a","mergingList":[{"name":"y","v":2},{"name":"x","v":1}],"m":{"j":2}}]})"));
}

TEST(StrategicMerge, NewValuesAreStoredWithoutNullsOrDirectives) {
  EXPECT_TRUE(Yields(smp(R"({})", R"({"a":{"b":null,"c":1},"mergingList":[{"name":"x","v":null},{"name":"y","$patch":"delete"}]})"),
                     R"({"a":{"c":1},"mergingList":[{"name":"x"}]})"));
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":"a"}]})", R"({"mergingList":[{"name":"b","x":null,"m":{"$patch":"delete"}}]})"),
                     R"({"mergingList":[{"name":"b"},{"name":"a"}]})"));
}

TEST(StrategicMerge, DirectiveOnAnAbsentMap) {
  EXPECT_TRUE(Yields(smp(R"({"a":1})", R"({"m":{"$patch":"delete"}})"), R"({"a":1})"));
  EXPECT_TRUE(Yields(smp(R"({"a":1})", R"({"m":{"$patch":"replace","x":1}})"), R"({"a":1,"m":{"x":1}})"));
}

TEST(StrategicMerge, ReplaceDirectiveOnANestedMap) {
  EXPECT_TRUE(Yields(smp(R"({"m":{"a":1,"b":{"c":1}}})", R"({"m":{"$patch":"replace","b":{"d":2}}})"), R"({"m":{"b":{"d":2}}})"));
}

TEST(StrategicMerge, ExplicitMergeDirectiveIsTheDefault) {
  EXPECT_TRUE(Yields(smp(R"({"m":{"a":1}})", R"({"m":{"$patch":"merge","b":2}})"), R"({"m":{"a":1,"b":2}})"));
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1}]})", R"({"mergingList":[{"$patch":"merge"},{"name":2}]})"),
                     R"({"mergingList":[{"name":2},{"name":1}]})"));
}

TEST(StrategicMerge, UnknownDirectivesAreBadRequests) {
  EXPECT_TRUE(Fails(smp(R"({"m":{}})", R"({"m":{"$patch":"frobnicate"}})"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(smp(R"({"mergingList":[{"name":1}]})", R"({"mergingList":[{"name":1,"$patch":"explode"}]})"),
                    Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(smp(R"({"m":{}})", R"({"m":{"$patch":1}})"), Kind::BadRequest, Cause::Malformed));
}

TEST(StrategicMerge, DeleteElementNeedsItsMergeKey) {
  EXPECT_TRUE(Fails(smp(R"({"mergingList":[{"name":1}]})", R"({"mergingList":[{"$patch":"delete"}]})"), Kind::Invalid,
                    Cause::MergeFailed));
}

TEST(StrategicMerge, ReplaceElementReplacesTheWholeList) {
  EXPECT_TRUE(Yields(smp(R"({"mergingList":[{"name":1,"a":1},{"name":2}]})",
                         R"({"mergingList":[{"name":3,"b":null,"c":1},{"$patch":"replace"}]})"),
                     R"({"mergingList":[{"name":3,"c":1}]})"));
}

TEST(StrategicMerge, RetainKeysMustBeAListThatCoversThePatch) {
  EXPECT_TRUE(Fails(smp(R"({"m":{"a":1}})", R"({"m":{"$retainKeys":"a"}})"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(smp(R"({"m":{"a":1}})", R"({"m":{"$retainKeys":["a"],"b":2}})"), Kind::BadRequest, Cause::Malformed));
  // Nulls and directive keys are not "set by the patch".
  EXPECT_TRUE(Yields(smp(R"({"m":{"a":1,"b":2,"c":3}})", R"({"m":{"$retainKeys":["a"],"b":null}})"), R"({"m":{"a":1}})"));
}

TEST(StrategicMerge, MalformedDirectiveKeys) {
  EXPECT_TRUE(Fails(smp(R"({})", R"({"$setElementOrderX/list":[]})"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(smp(R"({})", R"({"$setElementOrder":[]})"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(smp(R"({})", R"({"$setElementOrder/list":{}})"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(smp(R"({"list":[1]})", R"({"$deleteFromPrimitiveListX/list":[1]})"), Kind::BadRequest, Cause::Malformed));
}

TEST(StrategicMerge, ListsOfListsAndMixedElementsAreRefused) {
  EXPECT_TRUE(Fails(smp(R"({"mergingIntList":[[1]]})", R"({"mergingIntList":[[2]]})"), Kind::Invalid, Cause::MergeFailed));
  EXPECT_TRUE(Fails(smp(R"({"mergingIntList":[1]})", R"({"mergingIntList":["a"]})"), Kind::Invalid, Cause::MergeFailed));
}

TEST(StrategicMerge, NumbersOfAnyRepresentationAreOneKindAndCompareByValue) {
  EXPECT_TRUE(Yields(smp(R"({"mergingIntList":[1,2]})", R"({"mergingIntList":[2.0,3]})"), R"({"mergingIntList":[1,2,3]})"));
}

TEST(StrategicMerge, TypeChangesReplace) {
  EXPECT_TRUE(Yields(smp(R"({"a":[1],"b":{"x":1},"c":"s"})", R"({"a":{"y":null,"z":1},"b":[1],"c":{"k":1}})"),
                     R"({"a":{"z":1},"b":[1],"c":{"k":1}})"));
}

TEST(StrategicMerge, PatchMustBeAnObject) {
  EXPECT_TRUE(Fails(smp(R"({})", R"([1])"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(smp(R"({})", R"(null)"), Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(Fails(strategic_merge_patch(J("[1]"), J("{}"), merge_item_strategy), Kind::Invalid, Cause::MergeFailed));
}

TEST(StrategicMerge, ListOfObjectsWithoutAMergeKeyCannotMerge) {
  auto set_strategy = [](FieldPath) { return ListStrategy{ListStrategy::Kind::Set, {}}; };
  EXPECT_TRUE(Fails(strategic_merge_patch(J(R"({"l":[{"a":1}]})"), J(R"({"l":[{"a":2}]})"), set_strategy),
                    Kind::Invalid, Cause::MergeFailed));
}

TEST(StrategicMerge, WithoutAResolverEveryListIsReplaced) {
  EXPECT_TRUE(Yields(strategic_merge_patch(J(R"({"l":[1,2]})"), J(R"({"l":[3]})"), {}), R"({"l":[3]})"));
}

TEST(StrategicMerge, TooDeepIsAnError) {
  json::value patch = json::object();
  json::value* cur = &patch;
  for (int i = 0; i < kMaxDepth + 5; ++i) {
    cur->get_object()["k"] = json::object();
    cur = &cur->get_object()["k"];
  }
  auto r = strategic_merge_patch(J("{}"), patch, {});
  EXPECT_TRUE(Fails(r, Kind::BadRequest, Cause::TooDeep));
}

// ---- what kubectl sends, on a Job with the built-in strategies ----

json::value job_with_everything() {
  return J(R"({"apiVersion":"batch/v1","kind":"Job",
    "metadata":{"name":"j","finalizers":["a.example/x","b.example/y"],
                "ownerReferences":[{"uid":"u1","name":"o1","kind":"K","apiVersion":"v1"}]},
    "spec":{"template":{"spec":{
      "containers":[
        {"name":"main","image":"img:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
         "ports":[{"containerPort":80,"protocol":"TCP"}],"volumeMounts":[{"name":"v","mountPath":"/data"}],
         "args":["x","y"]},
        {"name":"side","image":"side:1"}],
      "initContainers":[{"name":"init","image":"i:1"}],
      "volumes":[{"name":"v","emptyDir":{}},{"name":"w","configMap":{"name":"cm"}}],
      "imagePullSecrets":[{"name":"s1"}],
      "tolerations":[{"key":"t1","operator":"Exists"}],
      "topologySpreadConstraints":[{"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","maxSkew":1}],
      "schedulingGates":[{"name":"g1"}],
      "hostAliases":[{"ip":"10.0.0.1","hostnames":["a"]}]}}},
    "status":{"conditions":[{"type":"Suspended","status":"True"}]}})");
}

TEST(StrategicMergeJob, KubectlApplyPatchWithOrderRetainKeysAndDeletions) {
  auto r = job_smp(job_with_everything(), R"({
    "metadata":{"$deleteFromPrimitiveList/finalizers":["a.example/x"]},
    "spec":{"template":{"spec":{
      "$setElementOrder/containers":[{"name":"side"},{"name":"main"}],
      "containers":[{"name":"main","$setElementOrder/env":[{"name":"B"},{"name":"C"}],
                     "env":[{"name":"A","$patch":"delete"},{"name":"C","value":"3"}],"image":"img:2"}],
      "$setElementOrder/volumes":[{"name":"v"},{"name":"w"}],
      "volumes":[{"$retainKeys":["name","secret"],"name":"w","secret":{"secretName":"s"}}]}}}})");
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(testing::JsonEq(testing::At(*r, {"metadata", "finalizers"}), J(R"(["b.example/y"])")));
  const json::value& spec = testing::At(*r, {"spec", "template", "spec"});
  EXPECT_TRUE(testing::JsonEq(testing::At(spec, {"containers"}), J(R"([
      {"name":"side","image":"side:1"},
      {"name":"main","image":"img:2","env":[{"name":"B","value":"2"},{"name":"C","value":"3"}],
       "ports":[{"containerPort":80,"protocol":"TCP"}],"volumeMounts":[{"name":"v","mountPath":"/data"}],
       "args":["x","y"]}])")));
  EXPECT_TRUE(testing::JsonEq(testing::At(spec, {"volumes"}),
                              J(R"([{"name":"v","emptyDir":{}},{"name":"w","secret":{"secretName":"s"}}])")));
}

TEST(StrategicMergeJob, EveryMergeListOfThePodTemplate) {
  auto r = job_smp(job_with_everything(), R"({"metadata":{"finalizers":["c.example/z"],
      "ownerReferences":[{"uid":"u2","name":"o2","kind":"K","apiVersion":"v1"}]},
    "spec":{"template":{"spec":{
      "containers":[{"name":"main","ports":[{"containerPort":8080}],"volumeMounts":[{"name":"w","mountPath":"/w"}],
                     "args":["z"]}],
      "initContainers":[{"name":"init2","image":"i:2"}],
      "imagePullSecrets":[{"name":"s2"}],
      "tolerations":[{"key":"t2","operator":"Exists"}],
      "topologySpreadConstraints":[{"topologyKey":"host","whenUnsatisfiable":"ScheduleAnyway","maxSkew":2}],
      "schedulingGates":[{"name":"g2"}],
      "hostAliases":[{"ip":"10.0.0.2","hostnames":["b"]}]}}},
    "status":{"conditions":[{"type":"Complete","status":"True"}]}})");
  ASSERT_TRUE(testing::Ok(r));
  auto at = [&](std::initializer_list<std::string_view> p) -> const json::value& { return testing::At(*r, p); };
  EXPECT_TRUE(testing::JsonEq(at({"metadata", "finalizers"}), J(R"(["c.example/z","a.example/x","b.example/y"])")));
  EXPECT_EQ(at({"metadata", "ownerReferences"}).as_array().size(), 2u);
  const json::value& main = at({"spec", "template", "spec", "containers"}).as_array()[0];
  EXPECT_TRUE(testing::JsonEq(testing::At(main, {"ports"}), J(R"([{"containerPort":8080},{"containerPort":80,"protocol":"TCP"}])")));
  EXPECT_EQ(testing::At(main, {"volumeMounts"}).as_array().size(), 2u);
  EXPECT_TRUE(testing::JsonEq(testing::At(main, {"args"}), J(R"(["z"])")));  // atomic
  EXPECT_EQ(at({"spec", "template", "spec", "initContainers"}).as_array().size(), 2u);
  EXPECT_EQ(at({"spec", "template", "spec", "imagePullSecrets"}).as_array().size(), 2u);
  EXPECT_TRUE(testing::JsonEq(at({"spec", "template", "spec", "tolerations"}), J(R"([{"key":"t2","operator":"Exists"}])")));
  EXPECT_EQ(at({"spec", "template", "spec", "topologySpreadConstraints"}).as_array().size(), 2u);
  EXPECT_EQ(at({"spec", "template", "spec", "schedulingGates"}).as_array().size(), 2u);
  EXPECT_EQ(at({"spec", "template", "spec", "hostAliases"}).as_array().size(), 2u);
  EXPECT_EQ(at({"status", "conditions"}).as_array().size(), 2u);  // merged by type for strategic merge
}

TEST(StrategicMergeJob, KubectlApplyOfAPrimitiveMergeList) {
  // kubectl apply: the new order, the additions and the deletions of finalizers at once.
  auto r = job_smp(J(R"({"metadata":{"name":"j","finalizers":["a","b"]}})"),
                   R"({"metadata":{"$setElementOrder/finalizers":["b","c"],"$deleteFromPrimitiveList/finalizers":["a"],
                       "finalizers":["c"]}})");
  EXPECT_TRUE(Yields(r, R"({"metadata":{"name":"j","finalizers":["b","c"]}})"));
}

TEST(StrategicMergeJob, RemoveAFinalizerTheWayControllersDo) {
  auto r = job_smp(job_with_everything(), R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a.example/x","b.example/y"]}})");
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(testing::JsonEq(testing::At(*r, {"metadata", "finalizers"}), J("[]")));
}

TEST(StrategicMergeJob, DeleteAContainerAndAnOwnerReference) {
  auto r = job_smp(job_with_everything(), R"({"metadata":{"ownerReferences":[{"uid":"u1","$patch":"delete"}]},
      "spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}})");
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(testing::JsonEq(testing::At(*r, {"metadata", "ownerReferences"}), J("[]")));
  const auto& containers = testing::At(*r, {"spec", "template", "spec", "containers"}).as_array();
  ASSERT_EQ(containers.size(), 1u);
  EXPECT_EQ(json::get_string(containers[0], "name"), "main");
}

}  // namespace
}  // namespace kueuepp::kube::patch
