// managedFields of ordinary writes (record_update): what kube-apiserver records for
// create, update, patch and status writes.

#include <gtest/gtest.h>

#include <string>

#include "kube/apiserver/patch/patch.hpp"
#include "tests/kube/apiserver/patch/test_json.hpp"

namespace kueuepp::kube::patch {
namespace {

using testing::At;
using testing::J;
using testing::JsonEq;

constexpr const char* kT0 = "2024-01-01T00:00:00Z";
constexpr const char* kT1 = "2024-01-01T00:00:01Z";
constexpr const char* kT2 = "2024-01-01T00:00:02Z";

json::value config_map(std::string_view data = R"({"k":"v"})") {
  return J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns","uid":"u",
               "resourceVersion":"1","labels":{"a":"1"}},"data":)" +
           std::string(data) + "}");
}

const json::array& entries(const json::value& object) {
  static const json::array none;
  const json::value* mf = json::find_path(object, {"metadata", "managedFields"});
  return mf != nullptr && mf->is_array() ? mf->as_array() : none;
}

json::value fields_of(const json::value& object, std::string_view manager) {
  for (const auto& e : entries(object)) {
    if (json::get_string(e, "manager") == manager) return At(e, {"fieldsV1"});
  }
  return nullptr;
}

json::value created(std::string_view manager = "kubectl-create") {
  json::value cm = config_map();
  record_update(cm, nullptr, manager, "v1", kT0);
  return cm;
}

TEST(RecordUpdate, CreateOwnsEverythingWithTheObjectsThemselves) {
  const json::value cm = created();
  ASSERT_EQ(entries(cm).size(), 1u);
  EXPECT_TRUE(JsonEq(entries(cm)[0], J(R"({"manager":"kubectl-create","operation":"Update","apiVersion":"v1",
      "time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1",
      "fieldsV1":{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:a":{}}}}})")));
}

TEST(RecordUpdate, TheWriterTakesWhatItChanges) {
  const json::value before = created();
  json::value after = before;
  after.as_object()["data"].as_object()["k"] = "w";
  after.as_object()["data"].as_object()["n"] = "new";
  record_update(after, &before, "editor", "v1", kT1);
  EXPECT_TRUE(JsonEq(fields_of(after, "editor"), J(R"({"f:data":{"f:k":{},"f:n":{}}})")));
  EXPECT_TRUE(JsonEq(fields_of(after, "kubectl-create"), J(R"({"f:data":{},"f:metadata":{"f:labels":{".":{},"f:a":{}}}})")));
}

TEST(RecordUpdate, RemovedFieldsLeaveEveryone) {
  const json::value before = created();
  json::value after = before;
  after.as_object()["metadata"].as_object()["labels"].as_object().erase("a");
  record_update(after, &before, "editor", "v1", kT1);
  EXPECT_TRUE(JsonEq(fields_of(after, "kubectl-create"), J(R"({"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{}}})")));
  EXPECT_TRUE(fields_of(after, "editor").is_null());  // it only removed: it owns nothing
}

TEST(RecordUpdate, NoOpWriteChangesNothing) {
  const json::value before = created();
  json::value after = before;
  record_update(after, &before, "kubectl-create", "v1", kT2);
  EXPECT_TRUE(JsonEq(after, before));
}

// Found by fuzz/patch_fuzzer: a write that leaves metadata out (a JSON patch removing
// it, say) of an object whose fields are tracked threw from the path that keeps the
// stored entries in place. The entries are still recorded, in a metadata made for them.
TEST(RecordUpdate, AWriteWithoutMetadataStillRecordsTheEntries) {
  json::value before = J(R"({"apiVersion":"v1","kind":"ConfigMap","data":{"k":"v"}})");
  record_update(before, nullptr, "kubectl-create", "v1", kT0);
  ASSERT_EQ(entries(before).size(), 1u);
  for (const char* data : {R"({"k":"v"})", R"({"k":"w"})"}) {
    json::value after = J(R"({"apiVersion":"v1","kind":"ConfigMap","data":)" + std::string(data) + "}");
    ASSERT_NO_THROW(record_update(after, &before, "editor", "v1", kT1)) << data;
    EXPECT_FALSE(entries(after).empty()) << json::dump(after);
    after.as_object()["metadata"] = "not a map";
    ASSERT_NO_THROW(record_update(after, &before, "editor", "v1", kT1)) << data;
  }
}

TEST(RecordUpdate, TheSameManagerAccumulatesAndMovesItsTime) {
  const json::value before = created();
  json::value after = before;
  after.as_object()["data"].as_object()["x"] = "1";
  record_update(after, &before, "kubectl-create", "v1", kT1);
  ASSERT_EQ(entries(after).size(), 1u);
  EXPECT_EQ(json::get_string(entries(after)[0], "time"), kT1);
  EXPECT_TRUE(JsonEq(fields_of(after, "kubectl-create"),
                     J(R"({"f:data":{".":{},"f:k":{},"f:x":{}},"f:metadata":{"f:labels":{".":{},"f:a":{}}}})")));
}

TEST(RecordUpdate, ServerSetMetadataIsNobodys) {
  json::value cm = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","uid":"u","generation":1,
                         "creationTimestamp":"t","resourceVersion":"1"}})");
  record_update(cm, nullptr, "m", "v1", kT0);
  EXPECT_TRUE(entries(cm).empty());
  EXPECT_EQ(json::find_path(cm, {"metadata", "managedFields"}), nullptr);
}

TEST(RecordUpdate, UntrackedObjectsStayUntracked) {
  json::value before = config_map();
  json::value after = before;
  after.as_object()["data"].as_object()["k"] = "w";
  record_update(after, &before, "editor", "v1", kT1);
  EXPECT_TRUE(entries(after).empty());
}

TEST(RecordUpdate, EmptyManagedFieldsInTheRequestClearThem) {
  const json::value before = created();
  json::value after = before;
  after.as_object()["metadata"].as_object()["managedFields"] = json::array();
  record_update(after, &before, "editor", "v1", kT1);
  EXPECT_EQ(json::find_path(after, {"metadata", "managedFields"}), nullptr);
}

TEST(RecordUpdate, ManagedFieldsSentWithTheRequestReplaceTheStoredOnes) {
  const json::value before = created();
  json::value after = before;
  after.as_object()["metadata"].as_object()["managedFields"] = J(R"([{"manager":"imported","operation":"Update",
      "apiVersion":"v1","time":"2023-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}])");
  record_update(after, &before, "editor", "v1", kT1);
  ASSERT_EQ(entries(after).size(), 1u);
  EXPECT_EQ(json::get_string(entries(after)[0], "manager"), "imported");
}

TEST(RecordUpdate, StatusWritesKeepTheStoredEntriesAndNameTheSubresource) {
  json::value before = J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"parallelism":1}})");
  record_update(before, nullptr, "kubectl-create", "batch/v1", kT0);
  json::value after = before;
  after.as_object()["metadata"].as_object()["managedFields"] = json::array();  // ignored for a subresource
  after.as_object()["status"] = J(R"({"active":1,"conditions":[{"type":"Suspended","status":"True"}]})");
  record_update(after, &before, "job-controller", "batch/v1", kT1, "status");
  ASSERT_EQ(entries(after).size(), 2u);
  const json::value& status_entry = entries(after)[1];
  EXPECT_EQ(json::get_string(status_entry, "subresource"), "status");
  // Job status conditions are atomic for apply purposes, hence owned whole.
  EXPECT_TRUE(JsonEq(At(status_entry, {"fieldsV1"}), J(R"({"f:status":{".":{},"f:active":{},"f:conditions":{}}})")));
}

TEST(RecordUpdate, ListMapElementsAreOwnedByKey) {
  json::value before = J(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
      "spec":{"template":{"spec":{"containers":[{"name":"c","image":"a"}]}}}})");
  record_update(before, nullptr, "create", "batch/v1", kT0);
  json::value after = before;
  after.as_object()["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0]
      .as_object()["image"] = "b";
  record_update(after, &before, "editor", "batch/v1", kT1);
  EXPECT_TRUE(JsonEq(fields_of(after, "editor"),
                     J(R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:image":{}}}}}}})")));
}

TEST(RecordUpdate, CustomResourcesUseTheGivenListStrategies) {
  auto lists = [](FieldPath p) {
    return p.back() == "conditions" ? ListStrategy{ListStrategy::Kind::Map, {"type"}} : ListStrategy{};
  };
  json::value wl = J(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w"},
      "status":{"conditions":[{"type":"Admitted","status":"True"}]}})");
  record_update(wl, nullptr, "kueue", "kueue.x-k8s.io/v1beta2", kT0, "status", lists);
  EXPECT_TRUE(JsonEq(fields_of(wl, "kueue"), J(R"({"f:status":{".":{},"f:conditions":{".":{},
      "k:{\"type\":\"Admitted\"}":{".":{},"f:status":{},"f:type":{}}}}})")));
  // Without them every list of an unknown kind is atomic.
  json::value atomic = J(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w"},
      "status":{"conditions":[{"type":"Admitted","status":"True"}]}})");
  record_update(atomic, nullptr, "kueue", "kueue.x-k8s.io/v1beta2", kT0, "status");
  EXPECT_TRUE(JsonEq(fields_of(atomic, "kueue"), J(R"({"f:status":{".":{},"f:conditions":{}}})")));
}

TEST(RecordUpdate, AtMostTenUpdateManagers) {
  json::value cm = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{}})");
  record_update(cm, nullptr, "m00", "v1", "2024-01-01T00:00:00Z");
  for (int i = 1; i <= 12; ++i) {
    const json::value before = cm;
    const std::string n = (i < 10 ? "0" : "") + std::to_string(i);
    cm.as_object()["data"].as_object()["k" + n] = "v";
    record_update(cm, &before, "m" + n, "v1", "2024-01-01T00:00:" + n + "Z");
  }
  const auto& e = entries(cm);
  ASSERT_EQ(e.size(), 10u);
  EXPECT_EQ(json::get_string(e[0], "manager"), "ancient-changes");
  // The oldest managers' fields were folded into it.
  EXPECT_NE(json::find_path(At(e[0], {"fieldsV1"}), {"f:data", "f:k01"}), nullptr);
  EXPECT_NE(json::find_path(At(e[0], {"fieldsV1"}), {"f:data", "f:k03"}), nullptr);
  EXPECT_EQ(json::get_string(e[9], "manager"), "m12");
}

TEST(RecordUpdate, UndecodableManagedFieldsAreDropped) {
  json::value before = config_map();
  before.as_object()["metadata"].as_object()["managedFields"] = J(R"([{"manager":"x","operation":"Bogus"}])");
  json::value after = before;
  after.as_object()["data"].as_object()["k"] = "w";
  record_update(after, &before, "editor", "v1", kT1);
  // upstream treats them as none; the object already exists, so it stays untracked.
  EXPECT_TRUE(entries(after).empty());
}

TEST(RecordUpdate, NonObjectsAreLeftAlone) {
  json::value v = J("[1,2]");
  record_update(v, nullptr, "m", "v1", kT0);
  EXPECT_TRUE(JsonEq(v, J("[1,2]")));
}

}  // namespace
}  // namespace kueuepp::kube::patch
