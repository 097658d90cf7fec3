// The status subresource: writes to .../status change status only (and keep
// generation); writes to the main resource ignore status; creates drop it.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";
constexpr std::string_view kJob = "/apis/batch/v1/namespaces/team/jobs/j1";
constexpr std::string_view kJobStatus = "/apis/batch/v1/namespaces/team/jobs/j1/status";

class ApiServerStatusSubresource : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }
};

TEST_F(ApiServerStatusSubresource, JobStatusWritesChangeOnlyStatus) {
  json::value body = job("j1");
  body.as_object()["status"] = json::object{{"active", 4}};
  json::value created = create(kJobs, body);
  EXPECT_EQ(json::dump(*at(created, "/status")), "{}");  // dropped on create

  // PATCH .../status: status changes, spec does not, generation stays.
  json::value patched = expect(200, api().patch(kJobStatus, json::object{{"status", json::object{{"active", 1}}},
                                                                         {"spec", json::object{{"parallelism", 7}}}}));
  EXPECT_EQ(num(patched, "/status/active"), 1);
  EXPECT_EQ(num(patched, "/spec/parallelism"), 1);
  EXPECT_EQ(num(patched, "/metadata/generation"), 1);
  EXPECT_GT(rv_of(patched), rv_of(created));

  // PUT .../status with a changed spec: the same.
  json::value put = patched;
  put.as_object()["status"].as_object()["succeeded"] = 1;
  put.as_object()["spec"].as_object()["parallelism"] = 9;
  json::value v3 = expect(200, api().put(kJobStatus, put));
  EXPECT_EQ(num(v3, "/status/succeeded"), 1);
  EXPECT_EQ(num(v3, "/spec/parallelism"), 1);
  EXPECT_EQ(num(v3, "/metadata/generation"), 1);

  // The same PUT again carries a stale resourceVersion now.
  EXPECT_EQ(str(expect(409, api().put(kJobStatus, put)), "/reason"), "Conflict");

  // Main resource: status in the body is ignored (a write of nothing else is a no-op).
  json::value ignored = expect(200, api().patch(kJob, json::object{{"status", json::object{{"active", 99}}}}));
  EXPECT_EQ(num(ignored, "/status/active"), 1);
  EXPECT_EQ(rv_of(ignored), rv_of(v3));
  json::value main_put = v3;
  main_put.as_object()["status"] = json::object{{"failed", 5}};
  main_put.as_object()["spec"].as_object()["parallelism"] = 2;
  json::value v4 = expect(200, api().put(kJob, main_put));
  EXPECT_EQ(num(v4, "/spec/parallelism"), 2);
  EXPECT_EQ(num(v4, "/metadata/generation"), 2);
  EXPECT_EQ(num(v4, "/status/succeeded"), 1);
  EXPECT_EQ(at(v4, "/status/failed"), nullptr);

  json::value stored = get_ok(kJob);
  EXPECT_EQ(json::dump(*at(stored, "/status")), json::dump(*at(v4, "/status")));
  EXPECT_EQ(num(stored, "/spec/parallelism"), 2);

  // Status validation applies to status writes.
  json::value invalid = expect(422, api().patch(kJobStatus, json::object{{"status", json::object{{"active", -1}}}}));
  EXPECT_EQ(cause_fields(invalid), std::vector<std::string>{"status.active"});
  // No status subresource on a kind without one, nor other subresources.
  EXPECT_EQ(api().get("/api/v1/namespaces/team/configmaps/x/status").status, 404);
  EXPECT_EQ(api().get(std::string(kJob) + "/scale").status, 404);
  // A status write needs an existing object.
  EXPECT_EQ(api().patch("/apis/batch/v1/namespaces/team/jobs/nope/status", json::object{{"status", json::object{}}}).status,
            404);
}

class ApiServerCustomResourceStatus : public KueueServerTest {};

TEST_F(ApiServerCustomResourceStatus, StatusAndMainResourceAreSeparate) {
  std::string cq = std::string(kKueue) + "/clusterqueues/cq";
  json::value created = create(std::string(kKueue) + "/clusterqueues", cluster_queue("cq"));

  json::value condition = json::object{{"type", "Active"},
                                       {"status", "True"},
                                       {"reason", "Ready"},
                                       {"message", "Can admit new workloads"},
                                       {"lastTransitionTime", "2024-01-01T00:00:00Z"}};
  // A status patch ignores spec and metadata changes.
  json::value patched = expect(
      200, api().patch(cq + "/status",
                       json::object{{"status", json::object{{"pendingWorkloads", 3}, {"conditions", json::array{condition}}}},
                                    {"spec", json::object{{"stopPolicy", "Hold"}}},
                                    {"metadata", json::object{{"labels", json::object{{"sneaky", "yes"}}}}}}));
  EXPECT_EQ(num(patched, "/status/pendingWorkloads"), 3);
  EXPECT_EQ(str(patched, "/status/conditions/0/type"), "Active");
  EXPECT_EQ(str(patched, "/spec/stopPolicy"), "None");  // the schema default, not the patch's Hold
  EXPECT_EQ(at(patched, "/metadata/labels"), nullptr);
  EXPECT_EQ(num(patched, "/metadata/generation"), 1);

  // A main-resource patch ignores status.
  json::value main = expect(200, api().patch(cq, json::object{{"status", json::object{{"pendingWorkloads", 99}}},
                                                              {"metadata", json::object{{"labels", json::object{{"tier", "gold"}}}}}}));
  EXPECT_EQ(num(main, "/status/pendingWorkloads"), 3);
  EXPECT_EQ(str(main, "/metadata/labels/tier"), "gold");
  EXPECT_EQ(num(main, "/metadata/generation"), 1);

  // PUT .../status with a spec change: only status lands.
  json::value put = main;
  put.as_object()["spec"].as_object()["stopPolicy"] = "Hold";
  put.as_object()["status"].as_object()["pendingWorkloads"] = 4;
  json::value v3 = expect(200, api().put(cq + "/status", put));
  EXPECT_EQ(num(v3, "/status/pendingWorkloads"), 4);
  EXPECT_EQ(str(v3, "/spec/stopPolicy"), "None");

  json::value stored = get_ok(cq);
  EXPECT_EQ(num(stored, "/status/pendingWorkloads"), 4);
  EXPECT_EQ(str(stored, "/spec/stopPolicy"), "None");
  EXPECT_EQ(str(stored, "/metadata/labels/tier"), "gold");
  EXPECT_EQ(at(stored, "/metadata/labels/sneaky"), nullptr);
  EXPECT_EQ(num(stored, "/metadata/generation"), 1);
  EXPECT_EQ(str(stored, "/metadata/uid"), str(created, "/metadata/uid"));

  // A status write whose only change is to spec is a no-op (nothing stored, the same
  // resourceVersion), and no status entry of managedFields ever owned spec.
  json::value noop = expect(200, api().patch(cq + "/status", json::object{{"spec", json::object{{"stopPolicy", "Hold"}}}}));
  EXPECT_EQ(str(noop, "/metadata/resourceVersion"), str(stored, "/metadata/resourceVersion"));
  const json::value* entries = at(noop, "/metadata/managedFields");
  ASSERT_NE(entries, nullptr);
  for (const auto& e : entries->as_array()) {
    if (json::get_string(e, "subresource") != "status") continue;
    EXPECT_EQ(e.as_object().at("fieldsV1").as_object().if_contains("f:spec"), nullptr) << json::dump(e);
  }
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
