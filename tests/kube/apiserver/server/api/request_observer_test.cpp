// The request observer (ApiServerOptions::request_observer): one record per resource
// request with the verb, group, version, resource, subresource, namespace and name as
// Kubernetes authorization reads them, the User-Agent and the status answered; none for
// discovery and health requests.

#include <mutex>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kAgent = "observer-test/1.0 (linux/amd64)";

class RequestObserver : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.request_observer = [log = log_](const ApiRequestRecord& r) {
      std::lock_guard lock(log->mutex);
      log->records.push_back(r);
    };
    return o;
  }

  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
    create("/api/v1/namespaces/team/configmaps", config_map("existing"));
    clear();
  }

  static json::value config_map(std::string_view name) {
    return json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", json::object{{"name", name}}}};
  }

  /// One request with this test's User-Agent.
  HttpReply send(std::string_view method, std::string_view target, std::string_view body = {},
                 std::string_view content_type = "application/json") {
    return api().request(method, target, body, content_type, {{"User-Agent", std::string(kAgent)}});
  }

  std::vector<ApiRequestRecord> records() const {
    std::lock_guard lock(log_->mutex);
    return log_->records;
  }
  void clear() {
    std::lock_guard lock(log_->mutex);
    log_->records.clear();
  }
  /// The only record since the last clear() (the test fails when there is not exactly one).
  ApiRequestRecord only() {
    auto all = records();
    EXPECT_EQ(all.size(), 1u);
    clear();
    return all.empty() ? ApiRequestRecord{} : all.front();
  }

 private:
  struct Log {
    std::mutex mutex;
    std::vector<ApiRequestRecord> records;
  };
  std::shared_ptr<Log> log_ = std::make_shared<Log>();
};

/// "verb group/version resource/subresource ns/name status".
std::string summary(const ApiRequestRecord& r) {
  return r.verb + " " + r.group + "/" + r.version + " " + r.resource + (r.subresource.empty() ? "" : "/" + r.subresource) +
         " " + r.ns + "/" + r.name + " " + std::to_string(r.status);
}

TEST_F(RequestObserver, GetOfANamedObjectIsGet) {
  send("GET", "/api/v1/namespaces/team/configmaps/existing");
  ApiRequestRecord r = only();
  EXPECT_EQ(summary(r), "get /v1 configmaps team/existing 200");
  EXPECT_EQ(r.user_agent, kAgent);
}

TEST_F(RequestObserver, GetOfACollectionIsList) {
  send("GET", "/api/v1/namespaces/team/configmaps");
  EXPECT_EQ(summary(only()), "list /v1 configmaps team/ 200");
  send("GET", "/api/v1/configmaps");  // cluster-wide
  EXPECT_EQ(summary(only()), "list /v1 configmaps / 200");
}

TEST_F(RequestObserver, ListWithANameFieldSelectorNamesTheObject) {
  send("GET", "/api/v1/namespaces/team/configmaps?fieldSelector=metadata.name%3Dexisting");
  EXPECT_EQ(summary(only()), "list /v1 configmaps team/existing 200");
}

TEST_F(RequestObserver, WatchQueryIsWatchWhenEstablished) {
  send("GET", "/api/v1/namespaces/team/configmaps?watch=true&timeoutSeconds=1");
  EXPECT_EQ(summary(only()), "watch /v1 configmaps team/ 200");
}

TEST_F(RequestObserver, WatchPathIsWatch) {
  HttpReply r = send("GET", "/apis/batch/v1/watch/namespaces/team/jobs?timeoutSeconds=1");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(summary(only()), "watch batch/v1 jobs team/ 200");
  send("GET", "/api/v1/watch/namespaces/team/configmaps/existing?timeoutSeconds=1");
  EXPECT_EQ(summary(only()), "watch /v1 configmaps team/existing 200");
}

TEST_F(RequestObserver, PostIsCreate) {
  send("POST", "/api/v1/namespaces/team/configmaps", json::dump(config_map("new")));
  EXPECT_EQ(summary(only()), "create /v1 configmaps team/ 201");
}

TEST_F(RequestObserver, PutIsUpdate) {
  send("PUT", "/api/v1/namespaces/team/configmaps/existing", json::dump(config_map("existing")));
  EXPECT_EQ(summary(only()), "update /v1 configmaps team/existing 200");
}

TEST_F(RequestObserver, PatchIsPatchAndStatusIsASubresource) {
  send("PATCH", "/api/v1/namespaces/team/configmaps/existing", R"({"data":{"a":"b"}})", "application/merge-patch+json");
  EXPECT_EQ(summary(only()), "patch /v1 configmaps team/existing 200");
  create("/apis/batch/v1/namespaces/team/jobs", job("j"));
  clear();
  send("PATCH", "/apis/batch/v1/namespaces/team/jobs/j/status", R"({"status":{"active":1}})", "application/merge-patch+json");
  EXPECT_EQ(summary(only()), "patch batch/v1 jobs/status team/j 200");
}

TEST_F(RequestObserver, DeleteOfANamedObjectIsDelete) {
  send("DELETE", "/api/v1/namespaces/team/configmaps/existing");
  EXPECT_EQ(summary(only()), "delete /v1 configmaps team/existing 200");
}

TEST_F(RequestObserver, DeleteOfACollectionIsDeletecollection) {
  send("DELETE", "/api/v1/namespaces/team/configmaps");
  EXPECT_EQ(summary(only()), "deletecollection /v1 configmaps team/ 200");
}

TEST_F(RequestObserver, ClusterScopedRequestsHaveNoNamespaceExceptNamespacesThemselves) {
  send("GET", "/apis/scheduling.k8s.io/v1/priorityclasses/none");
  EXPECT_EQ(summary(only()), "get scheduling.k8s.io/v1 priorityclasses /none 404");
  // A Namespace is in itself, as RBAC sees it (a RoleBinding there may grant reading it).
  send("GET", "/api/v1/namespaces/team");
  EXPECT_EQ(summary(only()), "get /v1 namespaces team/team 200");
  send("GET", "/api/v1/namespaces");
  EXPECT_EQ(summary(only()), "list /v1 namespaces / 200");
}

TEST_F(RequestObserver, RefusedRequestsAreReportedWithTheirStatus) {
  send("POST", "/api/v1/namespaces/team/configmaps", json::dump(config_map("existing")));
  EXPECT_EQ(summary(only()), "create /v1 configmaps team/ 409");
  send("GET", "/apis/batch/v1/namespaces/team/nothings");
  EXPECT_EQ(summary(only()), "list batch/v1 nothings team/ 404");
}

TEST_F(RequestObserver, DiscoveryAndHealthAreNotReported) {
  for (std::string_view path : {"/api", "/api/v1", "/apis", "/apis/batch", "/apis/batch/v1", "/healthz", "/readyz",
                                "/version", "/openapi/v3"}) {
    send("GET", path);
  }
  EXPECT_TRUE(records().empty()) << summary(records().front());
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
