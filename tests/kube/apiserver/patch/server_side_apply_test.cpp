// Server-side apply: ownership, conflicts, removal of fields a manager stops applying,
// list merging, and the managedFields kube-apiserver writes (fieldsV1 as upstream
// serializes it).

#include <gtest/gtest.h>

#include <string>

#include "kube/apiserver/patch/patch.hpp"
#include "tests/kube/apiserver/patch/test_json.hpp"

namespace kueuepp::kube::patch {
namespace {

using Kind = PatchError::Kind;
using Cause = PatchError::Cause;
using testing::J;
using testing::JsonEq;

constexpr const char* kT0 = "2024-01-01T00:00:00Z";
constexpr const char* kT1 = "2024-01-01T00:00:01Z";
constexpr const char* kT2 = "2024-01-01T00:00:02Z";

Expected<json::value, PatchError> apply(const json::value* live, const json::value& config, std::string_view manager,
                                        std::string_view time, bool force = false, std::string_view subresource = {}) {
  ApplyRequest request{live, &config, manager, force, "batch/v1", time, {}};
  request.subresource = subresource;
  return server_side_apply(request);
}

const json::array& managed_fields(const json::value& object) {
  static const json::array none;
  const json::value* mf = json::find_path(object, {"metadata", "managedFields"});
  return mf != nullptr ? mf->as_array() : none;
}

// The entry of `manager` (and operation), or null.
json::value entry_of(const json::value& object, std::string_view manager, std::string_view operation = "Apply") {
  for (const auto& e : managed_fields(object)) {
    if (json::get_string(e, "manager") == manager && json::get_string(e, "operation") == operation) return e;
  }
  return nullptr;
}

json::value fields_of(const json::value& object, std::string_view manager, std::string_view operation = "Apply") {
  const json::value e = entry_of(object, manager, operation);
  const json::value* f = json::find(e, "fieldsV1");
  return f != nullptr ? *f : json::value();
}

json::value without_managed(json::value v) {
  if (json::value* meta = json::find(v, "metadata")) meta->as_object().erase("managedFields");
  return v;
}

json::value job_config(std::string_view spec_extra = "", std::string_view labels = R"({"app":"x"})") {
  std::string text = R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"ns","labels":)" +
                     std::string(labels) + R"(},"spec":{"parallelism":1,)" + std::string(spec_extra) +
                     R"("template":{"spec":{"restartPolicy":"Never",
                        "containers":[{"name":"c","image":"busybox","ports":[{"containerPort":80}]}]}}}})";
  return J(text);
}

// ---- create and the managedFields entry ----

TEST(ServerSideApply, CreateRecordsTheAppliedFields) {
  auto r = apply(nullptr, job_config(), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(without_managed(*r), job_config()));
  ASSERT_EQ(managed_fields(*r).size(), 1u);
  EXPECT_TRUE(JsonEq(managed_fields(*r)[0], J(R"({"manager":"kubectl","operation":"Apply","apiVersion":"batch/v1",
      "time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{
        "f:metadata":{"f:labels":{"f:app":{}}},
        "f:spec":{"f:parallelism":{},"f:template":{"f:spec":{"f:restartPolicy":{},
          "f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},
            "f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}})")));
}

TEST(ServerSideApply, FieldsV1IsSerializedInUpstreamOrder) {
  auto r = apply(nullptr, job_config(), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_EQ(json::dump(fields_of(*r, "kubectl")),
            R"({"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:parallelism":{},"f:template":{"f:spec":{)"
            R"("f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{)"
            R"("k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}},"f:restartPolicy":{}}}}})");
}

TEST(ServerSideApply, ReapplyingTheSameConfigurationChangesNothing) {
  auto first = apply(nullptr, job_config(), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(first));
  auto again = apply(&*first, job_config(), "kubectl", kT1);
  ASSERT_TRUE(testing::Ok(again));
  EXPECT_TRUE(JsonEq(*again, *first));  // the time of the entry stays too
}

TEST(ServerSideApply, NullsInTheConfigurationAreDropped) {
  auto r = apply(nullptr, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":null},"data":{"a":"1","b":null}})"),
                 "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(without_managed(*r), J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})")));
}

TEST(ServerSideApply, EmptyObjectsAreOwnedAsSuch) {
  auto r = apply(nullptr, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{}})"), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(fields_of(*r, "kubectl"), J(R"({"f:data":{}})")));
}

TEST(ServerSideApply, MetaFieldsAreOwnedByNobody) {
  auto r = apply(nullptr, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}})"),
                 "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(managed_fields(*r).empty());
}

// ---- conflicts ----

// kubectl created the Job; a controller then changed parallelism with an ordinary update.
json::value job_scaled_by_controller() {
  auto created = apply(nullptr, job_config(), "kubectl", kT0);
  EXPECT_TRUE(testing::Ok(created));
  json::value updated = *created;
  updated.as_object()["spec"].as_object()["parallelism"] = 2;
  record_update(updated, &*created, "kueue", "batch/v1", kT1);
  return updated;
}

TEST(ServerSideApplyConflicts, ChangingAFieldAnotherManagerOwnsIsAConflict) {
  const json::value live = job_scaled_by_controller();
  auto r = apply(&live, job_config(), "kubectl", kT2);  // parallelism back to 1
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::Conflict);
  EXPECT_EQ(r.error().cause, Cause::ManagerConflict);
  EXPECT_EQ(r.error().message, R"(Apply failed with 1 conflict: conflict with "kueue" using batch/v1: .spec.parallelism)");
  ASSERT_EQ(r.error().conflicts.size(), 1u);
  EXPECT_EQ(r.error().conflicts[0], R"(conflict with "kueue" using batch/v1: .spec.parallelism)");
  ASSERT_EQ(r.error().conflict_causes.size(), 1u);
  EXPECT_EQ(r.error().conflict_causes[0].field, ".spec.parallelism");
  EXPECT_EQ(r.error().conflict_causes[0].manager, "kueue");
  EXPECT_EQ(r.error().conflict_causes[0].message, R"(conflict with "kueue" using batch/v1)");
}

TEST(ServerSideApplyConflicts, ForceTakesTheFieldOver) {
  const json::value live = job_scaled_by_controller();
  auto r = apply(&live, job_config(), "kubectl", kT2, /*force=*/true);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_EQ(testing::At(*r, {"spec", "parallelism"}).as_int64(), 1);
  // The controller owned nothing else: its entry is gone.
  EXPECT_TRUE(entry_of(*r, "kueue", "Update").is_null());
  EXPECT_NE(json::find_path(fields_of(*r, "kubectl"), {"f:spec", "f:parallelism"}), nullptr);
}

TEST(ServerSideApplyConflicts, ApplyingTheOwnersValueIsNotAConflictAndSharesOwnership) {
  const json::value live = job_scaled_by_controller();
  auto r = apply(&live, job_config(R"("completions":1,)"), "other", kT2);  // same parallelism... 1 != 2
  ASSERT_FALSE(r);  // "other" would change parallelism from 2 to 1
  auto shared = apply(&live, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"parallelism":2}})"),
                      "other", kT2);
  ASSERT_TRUE(testing::Ok(shared));
  EXPECT_NE(json::find_path(fields_of(*shared, "other"), {"f:spec", "f:parallelism"}), nullptr);
  EXPECT_NE(json::find_path(fields_of(*shared, "kueue", "Update"), {"f:spec", "f:parallelism"}), nullptr);
}

TEST(ServerSideApplyConflicts, SeveralConflictsAreGroupedByManager) {
  auto a = apply(nullptr, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":"1","y":"1"}})"),
                 "alpha", kT0);
  ASSERT_TRUE(testing::Ok(a));
  auto b = apply(&*a, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"z":"1"}})"), "beta", kT1);
  ASSERT_TRUE(testing::Ok(b));
  auto c = apply(&*b, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":"2","y":"2","z":"2"}})"),
                 "gamma", kT2);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "Apply failed with 3 conflicts: conflicts with \"alpha\":\n- .data.x\n- .data.y\nconflicts with \"beta\":\n- .data.z");
  EXPECT_EQ(c.error().conflict_causes.size(), 3u);
}

TEST(ServerSideApplyConflicts, UntrackedObjectsBelongToBeforeFirstApply) {
  json::value live = without_managed(job_config());
  auto r = apply(&live, job_config(R"("completions":3,)"), "kubectl", kT1);
  ASSERT_TRUE(testing::Ok(r));  // only adds a field: no conflict
  EXPECT_FALSE(entry_of(*r, "before-first-apply", "Update").is_null());
  auto changed = apply(&live, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"parallelism":5}})"),
                       "kubectl", kT1);
  ASSERT_FALSE(changed);
  EXPECT_EQ(changed.error().message,
            R"(Apply failed with 1 conflict: conflict with "before-first-apply" using batch/v1: .spec.parallelism)");
}

// ---- removal of fields no longer applied ----

TEST(ServerSideApplyRemoval, AFieldTheManagerStopsApplyingIsRemoved) {
  auto first = apply(nullptr, job_config(R"("completions":1,)"), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(first));
  auto second = apply(&*first, job_config(), "kubectl", kT1);
  ASSERT_TRUE(testing::Ok(second));
  EXPECT_EQ(json::find_path(*second, {"spec", "completions"}), nullptr);
  EXPECT_EQ(json::get_string(entry_of(*second, "kubectl"), "time"), kT1);
}

TEST(ServerSideApplyRemoval, AFieldSomebodyElseAlsoOwnsStays) {
  auto first = apply(nullptr, job_config(R"("completions":1,)"), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(first));
  auto shared = apply(&*first, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"completions":1}})"),
                      "other", kT1);
  ASSERT_TRUE(testing::Ok(shared));
  auto dropped = apply(&*shared, job_config(), "kubectl", kT2);
  ASSERT_TRUE(testing::Ok(dropped));
  EXPECT_EQ(testing::At(*dropped, {"spec", "completions"}).as_int64(), 1);
  EXPECT_EQ(json::find_path(fields_of(*dropped, "kubectl"), {"f:spec", "f:completions"}), nullptr);
}

TEST(ServerSideApplyRemoval, FieldsNeverAppliedStay) {
  auto first = apply(nullptr, job_config(), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(first));
  json::value defaulted = *first;  // the server defaulted a field nobody applied
  defaulted.as_object()["spec"].as_object()["backoffLimit"] = 6;
  auto again = apply(&defaulted, job_config(), "kubectl", kT1);
  ASSERT_TRUE(testing::Ok(again));
  EXPECT_EQ(testing::At(*again, {"spec", "backoffLimit"}).as_int64(), 6);
}

TEST(ServerSideApplyRemoval, LabelsAndListElements) {
  auto first = apply(nullptr, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","labels":{"a":"1","b":"2"}},
      "spec":{"template":{"spec":{"containers":[{"name":"c1","image":"i"},{"name":"c2","image":"i"}]}}}})"),
                     "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(first));
  json::value live = *first;  // another writer adds label c
  live.as_object()["metadata"].as_object()["labels"].as_object()["c"] = "3";
  record_update(live, &*first, "labeler", "batch/v1", kT1);
  auto second = apply(&live, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","labels":{"a":"1"}},
      "spec":{"template":{"spec":{"containers":[{"name":"c1","image":"i"}]}}}})"),
                      "kubectl", kT2);
  ASSERT_TRUE(testing::Ok(second));
  EXPECT_TRUE(JsonEq(testing::At(*second, {"metadata", "labels"}), J(R"({"a":"1","c":"3"})")));
  EXPECT_TRUE(JsonEq(testing::At(*second, {"spec", "template", "spec", "containers"}), J(R"([{"name":"c1","image":"i"}])")));
}

TEST(ServerSideApplyRemoval, AStructNobodyHoldsAnyMoreGoesWithItsDefaults) {
  auto first = apply(nullptr, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})"),
                     "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(first));
  json::value live = *first;
  live.as_object()["data"].as_object()["defaulted"] = "x";  // written without tracking
  auto second = apply(&live, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})"), "kubectl", kT1);
  ASSERT_TRUE(testing::Ok(second));
  EXPECT_EQ(json::find(*second, "data"), nullptr);
  EXPECT_TRUE(managed_fields(*second).empty());
}

// ---- list semantics ----

TEST(ServerSideApplyLists, ListMapsMergeByKeyAndKeepOtherManagersElements) {
  auto first = apply(nullptr, job_config(), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(first));
  auto sidecar = apply(&*first, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"template":{"spec":{"containers":[{"name":"side","image":"s"}]}}}})"),
                       "injector", kT1);
  ASSERT_TRUE(testing::Ok(sidecar));
  const auto& containers = testing::At(*sidecar, {"spec", "template", "spec", "containers"}).as_array();
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(json::get_string(containers[0], "name"), "c");
  EXPECT_EQ(json::get_string(containers[1], "name"), "side");
  auto again = apply(&*sidecar, job_config(), "kubectl", kT2);
  ASSERT_TRUE(testing::Ok(again));
  EXPECT_EQ(testing::At(*again, {"spec", "template", "spec", "containers"}).as_array().size(), 2u);
}

TEST(ServerSideApplyLists, DefaultedListKeysMatch) {
  // The stored port got protocol TCP from defaulting; the applied one omits it.
  auto first = apply(nullptr, job_config(), "kubectl", kT0);
  ASSERT_TRUE(testing::Ok(first));
  json::value live = *first;
  live.as_object()["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0]
      .as_object()["ports"].as_array()[0].as_object()["protocol"] = "TCP";
  auto again = apply(&live, job_config(), "kubectl", kT1);
  ASSERT_TRUE(testing::Ok(again));
  const json::value& ports =
      testing::At(*again, {"spec", "template", "spec", "containers"}).as_array()[0].as_object().at("ports");
  EXPECT_TRUE(JsonEq(ports, J(R"([{"containerPort":80,"protocol":"TCP"}])")));
}

TEST(ServerSideApplyLists, ElementOrderFollowsStructuredMergeDiff) {
  auto lists = [](FieldPath p) {
    return p.back() == "items" ? ListStrategy{ListStrategy::Kind::Map, {"name"}} : ListStrategy{};
  };
  const json::value live = J(R"({"items":[{"name":"a","v":1},{"name":"x"},{"name":"b"}]})");
  const json::value config = J(R"({"items":[{"name":"b"},{"name":"a","w":2},{"name":"c"}]})");
  ApplyRequest request{&live, &config, "m", true, "v1", kT0, lists};
  auto r = server_side_apply(request);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(testing::At(*r, {"items"}), J(R"([{"name":"x"},{"name":"b"},{"name":"a","v":1,"w":2},{"name":"c"}])")));
}

TEST(ServerSideApplyLists, SetsUnionAndAreOwnedPerValue) {
  auto a = apply(nullptr, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["x/a"]}})"), "one", kT0);
  ASSERT_TRUE(testing::Ok(a));
  auto b = apply(&*a, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["x/b"]}})"), "two", kT1);
  ASSERT_TRUE(testing::Ok(b));
  EXPECT_TRUE(JsonEq(testing::At(*b, {"metadata", "finalizers"}), J(R"(["x/a","x/b"])")));
  EXPECT_TRUE(JsonEq(fields_of(*b, "two"), J(R"({"f:metadata":{"f:finalizers":{"v:\"x/b\"":{}}}})")));
  auto c = apply(&*b, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})"), "one", kT2);
  ASSERT_TRUE(testing::Ok(c));
  EXPECT_TRUE(JsonEq(testing::At(*c, {"metadata", "finalizers"}), J(R"(["x/b"])")));
}

TEST(ServerSideApplyLists, AtomicListsAreReplacedAndOwnedWhole) {
  const json::value live = J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"template":{"spec":{"tolerations":[{"key":"a"},{"key":"b"}]}}}})");
  auto r = apply(&live, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"template":{"spec":{"tolerations":[{"key":"c"}]}}}})"),
                 "kubectl", kT0, true);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(testing::At(*r, {"spec", "template", "spec", "tolerations"}), J(R"([{"key":"c"}])")));
  EXPECT_TRUE(JsonEq(testing::At(fields_of(*r, "kubectl"), {"f:spec", "f:template", "f:spec", "f:tolerations"}), J("{}")));
}

TEST(ServerSideApplyLists, JobConditionsAreAtomicForApply) {
  const json::value live = J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "status":{"conditions":[{"type":"Suspended","status":"True"}]}})");
  const json::value config = J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "status":{"conditions":[{"type":"Complete","status":"True"}]}})");
  auto r = apply(&live, config, "job-controller", kT0, /*force=*/true, "status");
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(testing::At(*r, {"status", "conditions"}), J(R"([{"type":"Complete","status":"True"}])")));
  const json::value e = entry_of(*r, "job-controller");
  EXPECT_EQ(json::get_string(e, "subresource"), "status");
  EXPECT_TRUE(JsonEq(testing::At(e, {"fieldsV1"}), J(R"({"f:status":{"f:conditions":{}}})")));
}

TEST(ServerSideApplyLists, AtomicObjectsAreReplacedWhole) {
  const json::value live = J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"selector":{"matchLabels":{"a":"1","b":"2"}},"template":{"spec":{"nodeSelector":{"x":"1"}}}}})");
  const json::value config = J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"selector":{"matchLabels":{"a":"1"}},"template":{"spec":{"nodeSelector":{"y":"2"}}}}})");
  auto r = apply(&live, config, "m", kT0, true);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(testing::At(*r, {"spec", "selector"}), J(R"({"matchLabels":{"a":"1"}})")));
  EXPECT_TRUE(JsonEq(testing::At(*r, {"spec", "template", "spec", "nodeSelector"}), J(R"({"y":"2"})")));
  EXPECT_TRUE(JsonEq(fields_of(*r, "m"), J(R"({"f:spec":{"f:selector":{},"f:template":{"f:spec":{"f:nodeSelector":{}}}}})")));
}

TEST(ServerSideApplyLists, CustomResourcesUseTheGivenStrategiesAndBuiltInMetadata) {
  auto lists = [](FieldPath p) {
    if (p.size() == 2 && p[0] == "spec" && p[1] == "podSets") return ListStrategy{ListStrategy::Kind::Map, {"name"}};
    return ListStrategy{};
  };
  const json::value config = J(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
      "metadata":{"name":"w","finalizers":["kueue.x-k8s.io/resource-in-use"]},
      "spec":{"podSets":[{"name":"main","count":1}]}})");
  ApplyRequest request{nullptr, &config, "kueue", false, "kueue.x-k8s.io/v1beta2", kT0, lists};
  auto r = server_side_apply(request);
  ASSERT_TRUE(testing::Ok(r));
  EXPECT_TRUE(JsonEq(fields_of(*r, "kueue"),
                     J(R"({"f:metadata":{"f:finalizers":{"v:\"kueue.x-k8s.io/resource-in-use\"":{}}},
                          "f:spec":{"f:podSets":{"k:{\"name\":\"main\"}":{".":{},"f:count":{},"f:name":{}}}}})")));
}

// ---- the applier's entry ----

TEST(ServerSideApplyEntries, SubresourceAppliersAreSeparateManagers) {
  auto main = apply(nullptr, job_config(), "kueue", kT0);
  ASSERT_TRUE(testing::Ok(main));
  auto status = apply(&*main, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"status":{"active":1}})"),
                      "kueue", kT1, false, "status");
  ASSERT_TRUE(testing::Ok(status));
  ASSERT_EQ(managed_fields(*status).size(), 2u);
  // The status applier did not apply spec, yet spec stays: it is the main applier's.
  EXPECT_NE(json::find_path(*status, {"spec", "parallelism"}), nullptr);
}

TEST(ServerSideApplyEntries, EntriesAreSortedApplyFirstThenByTime) {
  const json::value live = job_scaled_by_controller();
  auto r = apply(&live, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"completions":4}})"),
                 "zzz", kT2);
  ASSERT_TRUE(testing::Ok(r));
  const auto& entries = managed_fields(*r);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(json::get_string(entries[0], "manager"), "kubectl");
  EXPECT_EQ(json::get_string(entries[1], "manager"), "zzz");
  EXPECT_EQ(json::get_string(entries[2], "manager"), "kueue");
}

TEST(ServerSideApplyEntries, ApplyingNothingRemovesTheEntryAndWhatItOwned) {
  auto first = apply(nullptr, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})"), "m", kT0);
  ASSERT_TRUE(testing::Ok(first));
  auto empty = apply(&*first, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})"), "m", kT1);
  ASSERT_TRUE(testing::Ok(empty));
  EXPECT_TRUE(JsonEq(*empty, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})")));
}

// ---- malformed requests ----

TEST(ServerSideApplyErrors, ConfigurationMustBeAnObject) {
  const json::value config = J("[1]");
  ApplyRequest request{nullptr, &config, "m", false, "v1", kT0, {}};
  EXPECT_TRUE(testing::Fails(server_side_apply(request), Kind::BadRequest, Cause::Malformed));
  ApplyRequest none{nullptr, nullptr, "m", false, "v1", kT0, {}};
  EXPECT_TRUE(testing::Fails(server_side_apply(none), Kind::BadRequest, Cause::Malformed));
}

TEST(ServerSideApplyErrors, ManagedFieldsMustNotBeApplied) {
  auto r = apply(nullptr, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[]}})"), "m", kT0);
  EXPECT_TRUE(testing::Fails(r, Kind::BadRequest, Cause::Malformed));
  EXPECT_EQ(r.error().message, "metadata.managedFields must be nil");
}

TEST(ServerSideApplyErrors, DuplicateListKeys) {
  auto r = apply(nullptr, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"a"}]}}}})"),
                 "m", kT0);
  EXPECT_TRUE(testing::Fails(r, Kind::BadRequest, Cause::Malformed));
  EXPECT_NE(r.error().message.find(R"(duplicate entries for key [name="a"])"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().path, ".spec.template.spec.containers");
}

TEST(ServerSideApplyErrors, ListMapElementsNeedTheirKeys) {
  EXPECT_TRUE(testing::Fails(apply(nullptr, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"template":{"spec":{"containers":[{"image":"a"}]}}}})"),
                                   "m", kT0),
                             Kind::BadRequest, Cause::Malformed));
  EXPECT_TRUE(testing::Fails(apply(nullptr, J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"template":{"spec":{"containers":["a"]}}}})"),
                                   "m", kT0),
                             Kind::BadRequest, Cause::Malformed));
}

TEST(ServerSideApplyErrors, CorruptStoredManagedFields) {
  const json::value live = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c",
      "managedFields":[{"manager":"m","operation":"Patch","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{}}]}})");
  auto r = apply(&live, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})"), "m", kT0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::Invalid);
}

TEST(ServerSideApplyErrors, LiveMustBeAnObject) {
  const json::value live = J("5");
  auto r = apply(&live, J(R"({"apiVersion":"v1","kind":"ConfigMap"})"), "m", kT0);
  EXPECT_TRUE(testing::Fails(r, Kind::Invalid, Cause::Malformed));
}

}  // namespace
}  // namespace kueuepp::kube::patch
