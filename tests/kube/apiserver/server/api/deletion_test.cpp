// DELETE with finalizers: the object stays with a deletionTimestamp until its last
// finalizer is removed, no finalizer may be added meanwhile, and deleting it again writes
// nothing. deletecollection deletes what the selector matches.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kJob = "/apis/batch/v1/namespaces/team/jobs/j1";

json::value with_finalizers(json::value obj, json::array finalizers) {
  obj.as_object()["metadata"].as_object()["finalizers"] = std::move(finalizers);
  return obj;
}

class ApiServerDeletion : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }
};

TEST_F(ApiServerDeletion, FinalizersHoldTheObjectUntilRemoved) {
  json::value created =
      create("/apis/batch/v1/namespaces/team/jobs", with_finalizers(job("j1"), {"example.com/a", "example.com/b"}));
  json::value held = expect(200, api().del(std::string(kJob) + "?propagationPolicy=Background"));
  // The answer is the object, now being deleted.
  EXPECT_EQ(str(held, "/kind"), "Job");
  EXPECT_FALSE(str(held, "/metadata/deletionTimestamp").empty());
  EXPECT_EQ(num(held, "/metadata/deletionGracePeriodSeconds"), 0);
  EXPECT_EQ(num(held, "/metadata/generation"), 2);
  EXPECT_GT(rv_of(held), rv_of(created));

  json::value got = get_ok(kJob);
  EXPECT_EQ(str(got, "/metadata/deletionTimestamp"), str(held, "/metadata/deletionTimestamp"));
  EXPECT_EQ(json::dump(*at(got, "/metadata/finalizers")), R"(["example.com/a","example.com/b"])");

  // Deleting again writes nothing.
  json::value again = expect(200, api().del(std::string(kJob) + "?propagationPolicy=Background"));
  EXPECT_EQ(rv_of(again), rv_of(held));

  // No new finalizers while being deleted.
  json::value status = expect(
      422, api().patch(kJob, json::object{{"metadata", json::object{{"finalizers", json::array{"example.com/a", "example.com/b", "example.com/c"}}}}}));
  EXPECT_EQ(str(status, "/reason"), "Invalid");
  EXPECT_NE(str(status, "/message").find("no new finalizers"), std::string::npos) << str(status, "/message");

  // Other changes are fine, and removing one finalizer keeps the object.
  json::value one_left =
      expect(200, api().patch(kJob, json::object{{"metadata", json::object{{"finalizers", json::array{"example.com/b"}}}}}));
  EXPECT_EQ(json::dump(*at(one_left, "/metadata/finalizers")), R"(["example.com/b"])");
  EXPECT_EQ(api().get(kJob).status, 200);

  // The last one goes: so does the object.
  json::value last = expect(200, api().patch(kJob, json::object{{"metadata", json::object{{"finalizers", nullptr}}}}));
  EXPECT_EQ(at(last, "/metadata/finalizers"), nullptr);
  EXPECT_EQ(api().get(kJob).status, 404);
  // The name is free again.
  create("/apis/batch/v1/namespaces/team/jobs", job("j1"));
}

TEST_F(ApiServerDeletion, ObjectWithoutFinalizersGoesAtOnce) {
  create("/api/v1/namespaces/team/configmaps", json::object{{"metadata", json::object{{"name", "cm"}}}});
  json::value status = expect(200, api().del("/api/v1/namespaces/team/configmaps/cm"));
  EXPECT_EQ(str(status, "/status"), "Success");
  EXPECT_EQ(api().get("/api/v1/namespaces/team/configmaps/cm").status, 404);
  EXPECT_EQ(api().del("/api/v1/namespaces/team/configmaps/cm").status, 404);
}

TEST_F(ApiServerDeletion, UidPreconditionMustMatch) {
  create("/api/v1/namespaces/team/configmaps", json::object{{"metadata", json::object{{"name", "cm"}}}});
  json::value opts = json::object{{"preconditions", json::object{{"uid", "not-the-uid"}}}};
  json::value status = expect(409, api().del("/api/v1/namespaces/team/configmaps/cm", json::dump(opts)));
  EXPECT_EQ(str(status, "/reason"), "Conflict");
  EXPECT_EQ(api().get("/api/v1/namespaces/team/configmaps/cm").status, 200);
  EXPECT_EQ(api().del("/api/v1/namespaces/team/configmaps/cm", "{not json").status, 400);
  EXPECT_EQ(api().del("/api/v1/namespaces/team/configmaps/cm?propagationPolicy=Sometimes").status, 422);
  EXPECT_EQ(api().get("/api/v1/namespaces/team/configmaps/cm").status, 200);
}

TEST_F(ApiServerDeletion, DeleteCollectionBySelector) {
  for (std::string n : {"a", "b", "c"}) {
    json::object labels{{"drop", n == "c" ? "no" : "yes"}};
    create("/api/v1/namespaces/team/configmaps", json::object{{"metadata", json::object{{"name", n}, {"labels", labels}}}});
  }
  json::value list = expect(200, api().del("/api/v1/namespaces/team/configmaps?labelSelector=drop%3Dyes"));
  EXPECT_EQ(item_names(list), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(item_names(get_ok("/api/v1/namespaces/team/configmaps")), std::vector<std::string>{"c"});
}

class ApiServerCustomResourceDeletion : public KueueServerTest {};

TEST_F(ApiServerCustomResourceDeletion, FinalizersHoldACustomResource) {
  std::string rfs = std::string(kKueue) + "/resourceflavors";
  create(rfs, with_finalizers(resource_flavor("rf"), {"kueue.x-k8s.io/resource-in-use"}));
  json::value held = expect(200, api().del(rfs + "/rf"));
  EXPECT_FALSE(str(held, "/metadata/deletionTimestamp").empty());
  EXPECT_EQ(api().get(rfs + "/rf").status, 200);
  json::value current = get_ok(rfs + "/rf");
  current.as_object()["metadata"].as_object().erase("finalizers");
  expect(200, api().put(rfs + "/rf", current));
  EXPECT_EQ(api().get(rfs + "/rf").status, 404);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
