#include "kube/jobs/merge_patch_diff.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::yaml;

TEST(MergePatchDiff, EqualDocumentsGiveEmptyPatch) {
  EXPECT_EQ(merge_patch_diff(yaml("{a: 1, b: {c: 2}}"), yaml("{a: 1, b: {c: 2}}")), json::value(json::object{}));
}

TEST(MergePatchDiff, ChangedAddedRemoved) {
  auto patch = merge_patch_diff(yaml("{a: 1, b: {c: 2, d: 3}, e: 5}"), yaml("{a: 2, b: {c: 2}, f: 6}"));
  EXPECT_EQ(patch, yaml("{a: 2, b: {d: null}, e: null, f: 6}"));
}

TEST(MergePatchDiff, ArraysAreReplacedWhole) {
  EXPECT_EQ(merge_patch_diff(yaml("{l: [1, 2]}"), yaml("{l: [1, 3]}")), yaml("{l: [1, 3]}"));
}

TEST(MergePatchDiff, NullInTargetIsADeletion) {
  EXPECT_EQ(merge_patch_diff(yaml("{a: 1}"), yaml("{a: null}")), yaml("{a: null}"));
  EXPECT_EQ(merge_patch_diff(yaml("{}"), yaml("{a: null}")), yaml("{}"));
}

TEST(MergePatchDiff, ObjectReplacedByScalar) {
  EXPECT_EQ(merge_patch_diff(yaml("{a: {b: 1}}"), yaml("{a: 3}")), yaml("{a: 3}"));
  EXPECT_EQ(merge_patch_diff(yaml("[1]"), yaml("{a: 3}")), yaml("{a: 3}"));
}

TEST(MergePatchDiff, RoundTripsThroughMergePatch) {
  json::value from = yaml(testing::kJob);
  json::value to = from;
  to.as_object()["spec"].as_object()["suspend"] = false;
  to.as_object()["metadata"].as_object()["labels"].as_object().erase("kueue.x-k8s.io/queue-name");
  auto applied = patch::merge_patch(from, merge_patch_diff(from, to));
  ASSERT_TRUE(applied.has_value());
  EXPECT_EQ(*applied, to);
}

}  // namespace
}  // namespace kueuepp::kube::jobs
