// kube-apiserver's max-requests-inflight over HTTP: a user's writes beyond the limit that
// are still in flight (here waiting for a webhook that does not answer) are refused 429
// with Retry-After, reads have a budget of their own, system:masters is never limited,
// and a slot comes back once its request is answered.

#include <fstream>
#include <future>
#include <thread>

#include "kube/apiserver/server/api/in_flight_limit.hpp"
#include "tests/kube/apiserver/server/admission/test_webhook_server.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kMaster = "master-token";
constexpr std::string_view kDev = "dev-token";
constexpr std::string_view kValidating = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";

TEST(InFlightLimiter, CountsReadsAndWritesApartAndGivesSlotsBack) {
  InFlightLimiter limiter(1, 2);
  auto read = limiter.try_admit(false);
  ASSERT_TRUE(read);
  EXPECT_FALSE(limiter.try_admit(false));
  auto w1 = limiter.try_admit(true);
  auto w2 = limiter.try_admit(true);
  ASSERT_TRUE(w1 && w2);
  EXPECT_FALSE(limiter.try_admit(true));
  EXPECT_EQ(limiter.in_flight(true), 2u);
  w1.reset();
  EXPECT_EQ(limiter.in_flight(true), 1u);
  EXPECT_TRUE(limiter.try_admit(true));  // admitted and at once given back
  read.reset();
  EXPECT_TRUE(limiter.try_admit(false));
  InFlightLimiter unlimited(0, 0);
  std::vector<std::shared_ptr<void>> held;
  for (int i = 0; i < 1000; ++i) held.push_back(unlimited.try_admit(true));
  EXPECT_EQ(unlimited.in_flight(true), 1000u);
}

TEST(InFlightLimiter, KubeApiserversVerbClasses) {
  for (const char* verb : {"get", "list", "watch"}) EXPECT_FALSE(is_mutating_verb(verb)) << verb;
  for (const char* verb : {"create", "update", "patch", "delete", "deletecollection", "post"}) {
    EXPECT_TRUE(is_mutating_verb(verb)) << verb;
  }
  EXPECT_TRUE(is_long_running("watch", ""));
  EXPECT_TRUE(is_long_running("get", "log"));
  EXPECT_TRUE(is_long_running("create", "exec"));
  EXPECT_FALSE(is_long_running("get", "status"));
  EXPECT_FALSE(is_long_running("list", ""));
}

class InFlightLimit : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    std::ofstream(dir_.file("tokens.csv")) << "dev-token,dev,1001\n";
    ApiServerOptions o = test_options();
    o.bearer_token = std::string(kMaster);
    o.token_auth_file = dir_.file("tokens.csv");
    o.max_requests_inflight = 1;
    o.max_mutating_requests_inflight = 2;
    return o;
  }

  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    expect(201, as(kMaster, "POST", "/api/v1/namespaces", json::dump(name_space("team"))));
    // dev edits the namespace through the default edit role.
    expect(201, as(kMaster, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                   R"({"metadata": {"name": "dev-edit"},
                       "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
                       "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "dev"}]})"));
    ASSERT_TRUE(wait_until([&] { return as(kDev, "GET", kJobs).status == 200; }));
  }

  HttpReply as(std::string_view token, std::string_view method, std::string_view target, std::string_view body = {}) {
    ApiClient client(port());
    return client.request(method, target, body, "application/json", {{"Authorization", "Bearer " + std::string(token)}});
  }

  /// A validating webhook on Job creation that reads the review and never answers, for
  /// `seconds` (its timeout).
  void hang_job_creations(int seconds) {
    webhook_.on("/hang", [](const json::value&) { return TestWebhookServer::hang(); });
    json::value configuration = json::object{
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "ValidatingWebhookConfiguration"},
        {"metadata", json::object{{"name", "hang"}}},
        {"webhooks", json::array{json::object{
                         {"name", "hang.example.com"},
                         {"clientConfig", json::object{{"url", webhook_.url("/hang")}, {"caBundle", webhook_.ca_bundle()}}},
                         {"rules", json::array{json::object{{"operations", json::array{"CREATE"}},
                                                            {"apiGroups", json::array{"batch"}},
                                                            {"apiVersions", json::array{"v1"}},
                                                            {"resources", json::array{"jobs"}}}}},
                         {"sideEffects", "None"},
                         {"timeoutSeconds", seconds},
                         {"admissionReviewVersions", json::array{"v1"}}}}}};
    expect(201, as(kMaster, "POST", kValidating, json::dump(configuration)));
  }

  TestWebhookServer webhook_;
  TempDir dir_;
};

TEST_F(InFlightLimit, WritesBeyondTheLimitAre429UntilASlotIsFree) {
  hang_job_creations(3);
  std::vector<std::future<HttpReply>> waiting;
  for (const char* name : {"a", "b"}) {
    waiting.push_back(std::async(std::launch::async, [this, name] {
      return as(kDev, "POST", kJobs, json::dump(job(name)));
    }));
  }
  ASSERT_TRUE(wait_until([&] { return webhook_.received("/hang").size() == 2; }));

  // Both write slots are taken: the third write is refused at once, as kube-apiserver does.
  HttpReply refused = as(kDev, "POST", kJobs, json::dump(job("c")));
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(refused.body, "Too many requests, please try again later.\n");
  EXPECT_EQ(refused.header("retry-after"), "1");
  EXPECT_EQ(webhook_.received("/hang").size(), 2u);  // it never reached admission
  // Reads have their own budget; system:masters is not limited.
  EXPECT_EQ(as(kDev, "GET", kJobs).status, 200);
  EXPECT_EQ(as(kMaster, "POST", "/api/v1/namespaces", json::dump(name_space("by-master"))).status, 201);

  // The hung writes end (the webhook's timeout); their slots come back.
  for (auto& w : waiting) EXPECT_EQ(w.get().status, 500);
  expect(200, as(kMaster, "DELETE", std::string(kValidating) + "/hang"));
  EXPECT_EQ(as(kDev, "POST", kJobs, json::dump(job("d"))).status, 201);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
