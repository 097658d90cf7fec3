// The in-process garbage collector: ownerReferences with background cascading deletion
// (deleting a Job deletes its Workload), orphaning (a Job's default), foreground
// deletion, dependents of owners that never existed, and dependents with several owners.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";
constexpr std::string_view kCms = "/api/v1/namespaces/team/configmaps";

json::value owner_ref(const json::value& owner, bool block = false) {
  json::object ref{{"apiVersion", str(owner, "/apiVersion")},
                   {"kind", str(owner, "/kind")},
                   {"name", str(owner, "/metadata/name")},
                   {"uid", str(owner, "/metadata/uid")},
                   {"controller", true}};
  if (block) ref["blockOwnerDeletion"] = true;
  return ref;
}

json::value owned(json::value obj, json::array refs) {
  obj.as_object()["metadata"].as_object()["ownerReferences"] = std::move(refs);
  return obj;
}

json::value config_map(std::string_view name) {
  return json::object{{"metadata", json::object{{"name", name}}}, {"data", json::object{{"k", "v"}}}};
}

class ApiServerGarbageCollection : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }
};

TEST_F(ApiServerGarbageCollection, BackgroundDeletionTakesDependentsAlong) {
  json::value j = create(kJobs, job("j1"));
  create(kCms, owned(config_map("owned"), {owner_ref(j)}));
  create(kCms, config_map("free"));
  ASSERT_EQ(api().del(std::string(kJobs) + "/j1?propagationPolicy=Background").status, 200);
  EXPECT_EQ(api().get(std::string(kJobs) + "/j1").status, 404);
  EXPECT_TRUE(wait_gone(std::string(kCms) + "/owned"));
  EXPECT_EQ(api().get(std::string(kCms) + "/free").status, 200);
}

TEST_F(ApiServerGarbageCollection, JobsOrphanTheirDependentsByDefault) {
  json::value j = create(kJobs, job("j1"));
  create(kCms, owned(config_map("owned"), {owner_ref(j)}));
  HttpReply reply = api().del(std::string(kJobs) + "/j1");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_NE(reply.header("warning").find("child pods are preserved by default"), std::string::npos);
  EXPECT_TRUE(wait_gone(std::string(kJobs) + "/j1"));
  json::value cm = get_ok(std::string(kCms) + "/owned");
  EXPECT_EQ(at(cm, "/metadata/ownerReferences"), nullptr);
}

TEST_F(ApiServerGarbageCollection, OrphanPolicyReleasesDependents) {
  json::value j = create(kJobs, job("j1"));
  create(kCms, owned(config_map("owned"), {owner_ref(j)}));
  ASSERT_EQ(api().del(std::string(kJobs) + "/j1?propagationPolicy=Orphan").status, 200);
  EXPECT_TRUE(wait_gone(std::string(kJobs) + "/j1"));
  EXPECT_EQ(at(get_ok(std::string(kCms) + "/owned"), "/metadata/ownerReferences"), nullptr);
}

TEST_F(ApiServerGarbageCollection, ForegroundDeletionWaitsForBlockingDependents) {
  json::value j = create(kJobs, job("j1"));
  // The dependent has a finalizer of its own, so the owner must wait for it.
  json::value dep = owned(config_map("owned"), {owner_ref(j, true)});
  dep.as_object()["metadata"].as_object()["finalizers"] = json::array{"example.com/hold"};
  create(kCms, dep);
  json::value held = expect(200, api().del(std::string(kJobs) + "/j1?propagationPolicy=Foreground"));
  EXPECT_EQ(json::dump(*at(held, "/metadata/finalizers")), R"(["foregroundDeletion"])");
  // The dependent is being deleted; the owner waits.
  ASSERT_TRUE(wait_until([&] { return !str(get_ok(std::string(kCms) + "/owned"), "/metadata/deletionTimestamp").empty(); }));
  EXPECT_EQ(api().get(std::string(kJobs) + "/j1").status, 200);
  // The dependent's finalizer goes: so does it, and then the owner.
  ASSERT_EQ(api().patch(std::string(kCms) + "/owned", json::object{{"metadata", json::object{{"finalizers", nullptr}}}}).status, 200);
  EXPECT_TRUE(wait_gone(std::string(kCms) + "/owned"));
  EXPECT_TRUE(wait_gone(std::string(kJobs) + "/j1"));
}

TEST_F(ApiServerGarbageCollection, DependentsOfAbsentOwnersAreCollected) {
  json::value ghost = json::object{{"apiVersion", "batch/v1"},
                                   {"kind", "Job"},
                                   {"metadata", json::object{{"name", "ghost"}, {"uid", "00000000-0000-4000-8000-000000000001"}}}};
  create(kCms, owned(config_map("orphan"), {owner_ref(ghost)}));
  EXPECT_TRUE(wait_gone(std::string(kCms) + "/orphan"));
  // An owner of a kind this server does not serve cannot be looked up: left alone.
  json::value foreign = json::object{{"apiVersion", "example.com/v1"},
                                     {"kind", "Widget"},
                                     {"metadata", json::object{{"name", "w"}, {"uid", "00000000-0000-4000-8000-000000000002"}}}};
  create(kCms, owned(config_map("foreign"), {owner_ref(foreign)}));
  // A write after it is processed after the collector's check of it.
  create(kCms, config_map("marker"));
  ASSERT_EQ(api().get(std::string(kCms) + "/marker").status, 200);
  EXPECT_EQ(api().get(std::string(kCms) + "/foreign").status, 200);
}

TEST_F(ApiServerGarbageCollection, ADependentWithAnotherOwnerLosesOnlyTheDeletedReference) {
  json::value j1 = create(kJobs, job("j1"));
  json::value j2 = create(kJobs, job("j2"));
  json::value ref2 = owner_ref(j2);
  ref2.as_object()["controller"] = false;
  create(kCms, owned(config_map("shared"), {owner_ref(j1), ref2}));
  ASSERT_EQ(api().del(std::string(kJobs) + "/j1?propagationPolicy=Background").status, 200);
  ASSERT_TRUE(wait_until([&] {
    json::value cm = get_ok(std::string(kCms) + "/shared");
    const json::value* refs = at(cm, "/metadata/ownerReferences");
    return refs != nullptr && refs->as_array().size() == 1;
  }));
  EXPECT_EQ(str(get_ok(std::string(kCms) + "/shared"), "/metadata/ownerReferences/0/name"), "j2");
  ASSERT_EQ(api().del(std::string(kJobs) + "/j2?propagationPolicy=Background").status, 200);
  EXPECT_TRUE(wait_gone(std::string(kCms) + "/shared"));
}

class ApiServerWorkloadGarbageCollection : public KueueServerTest {};

TEST_F(ApiServerWorkloadGarbageCollection, DeletingAJobDeletesItsWorkload) {
  make_namespace("team");
  json::value j = create(kJobs, job("j1"));
  std::string wls = std::string(kKueue) + "/namespaces/team/workloads";
  create(wls, owned(workload("job-j1-abcde"), {owner_ref(j, true)}));
  create(wls, workload("unowned"));
  ASSERT_EQ(api().del(std::string(kJobs) + "/j1?propagationPolicy=Background").status, 200);
  EXPECT_TRUE(wait_gone(wls + "/job-j1-abcde"));
  EXPECT_EQ(item_names(get_ok(wls)), std::vector<std::string>{"unowned"});
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
