// API aggregation: APIServices registered and validated as kube-aggregator does, requests
// under an aggregated group-version proxied to a test HTTPS backend (GET, POST, watch),
// the front-proxy headers and client certificate the backend sees (verifiable with the CA
// published in kube-system/extension-apiserver-authentication), the Available condition
// kept by probing, discovery listing the group, and the answers when the backend fails.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "tests/kube/apiserver/server/aggregation/test_backend_server.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kApiServices = "/apis/apiregistration.k8s.io/v1/apiservices";
constexpr std::string_view kGroup = "visibility.kueue.x-k8s.io";
constexpr std::string_view kName = "v1beta2.visibility.kueue.x-k8s.io";
constexpr std::string_view kNamespace = "kueuepp-system";
constexpr std::string_view kService = "kueuepp-visibility";
constexpr std::string_view kVersionPath = "/apis/visibility.kueue.x-k8s.io/v1beta2";

json::value api_service(std::string_view version, std::string_view group, json::object spec_extra = {}) {
  json::object spec{{"group", group}, {"version", version}, {"groupPriorityMinimum", 100}, {"versionPriority", 100}};
  for (auto& kv : spec_extra) spec[kv.key()] = kv.value();
  return json::object{{"apiVersion", "apiregistration.k8s.io/v1"},
                      {"kind", "APIService"},
                      {"metadata", json::object{{"name", std::string(version) + "." + std::string(group)}}},
                      {"spec", std::move(spec)}};
}

json::object service_ref(int port = 443) {
  return json::object{{"namespace", kNamespace}, {"name", kService}, {"port", port}};
}

json::value service(int target_port, int port = 443) {
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", json::object{{"name", kService}, {"namespace", kNamespace}}},
      {"spec", json::object{{"ports", json::array{json::object{{"port", port}, {"targetPort", target_port}}}}}}};
}

class AggregationTest : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.apiservice_check_interval = std::chrono::milliseconds(200);
    o.apiservice_check_timeout = std::chrono::seconds(2);
    o.aggregated_request_timeout = std::chrono::milliseconds(1500);
    return o;
  }

  void SetUp() override {
    ServerTest::SetUp();
    make_namespace(kNamespace);
  }

  /// The front-proxy CA as the server publishes it.
  std::string front_proxy_ca() {
    json::value cm = get_ok("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
    return str(cm, "/data/requestheader-client-ca-file");
  }

  /// A backend for the Service, trusting the published front-proxy CA, serving discovery.
  std::unique_ptr<TestBackendServer> start_backend() {
    auto backend = std::make_unique<TestBackendServer>(
        std::vector<std::string>{std::string(kService) + "." + std::string(kNamespace) + ".svc"}, front_proxy_ca());
    backend->serve_discovery(std::string(kGroup), "v1beta2", "clusterqueues", "ClusterQueue");
    return backend;
  }

  /// Service, APIService with the backend's CA; waits until it is Available.
  void register_backend(const TestBackendServer& backend) {
    create("/api/v1/namespaces/kueuepp-system/services", service(backend.port()));
    create(kApiServices, api_service("v1beta2", kGroup, {{"service", service_ref()}, {"caBundle", backend.ca_bundle()}}));
    ASSERT_TRUE(wait_condition("True", "Passed"));
  }

  json::value available_condition() {
    json::value obj = body_json(api().get(std::string(kApiServices) + "/" + std::string(kName)));
    const json::value* conds = at(obj, "/status/conditions");
    if (conds == nullptr || !conds->is_array()) return nullptr;
    for (const auto& c : conds->as_array()) {
      if (json::get_string(c, "type") == "Available") return c;
    }
    return nullptr;
  }

  bool wait_condition(std::string_view status, std::string_view reason) {
    return wait_until([&] {
      json::value c = available_condition();
      return !c.is_null() && json::get_string(c, "status") == status && json::get_string(c, "reason") == reason;
    });
  }
};

// -- registration and validation -------------------------------------------------------

TEST_F(AggregationTest, AnApiServiceIsStoredWithItsServicePortDefaulted) {
  json::value created =
      create(kApiServices, api_service("v1beta2", kGroup, {{"service", json::object{{"namespace", kNamespace},
                                                                                    {"name", kService}}},
                                                            {"insecureSkipTLSVerify", true}}));
  EXPECT_EQ(num(created, "/spec/service/port"), 443);
  EXPECT_EQ(str(get_ok(std::string(kApiServices) + "/" + std::string(kName)), "/spec/group"), kGroup);
}

TEST_F(AggregationTest, ValidationRefusesWhatKubeAggregatorRefuses) {
  json::value wrong_name = api_service("v1beta2", kGroup, {{"insecureSkipTLSVerify", false}});
  wrong_name.as_object()["metadata"].as_object()["name"] = "v1.visibility.kueue.x-k8s.io";
  json::value status = expect(422, api().post(kApiServices, wrong_name));
  EXPECT_EQ(cause_fields(status), std::vector<std::string>{"metadata.name"});
  EXPECT_NE(str(status, "/message").find("must be `spec.version+\".\"+spec.group`"), std::string::npos);

  json::value priorities = api_service("v1beta2", kGroup, {{"groupPriorityMinimum", 20001}, {"versionPriority", 0}});
  EXPECT_EQ(cause_fields(expect(422, api().post(kApiServices, priorities))),
            (std::vector<std::string>{"spec.groupPriorityMinimum", "spec.versionPriority"}));

  json::value local_with_ca = api_service("v1beta2", kGroup, {{"caBundle", "Zm9v"}, {"insecureSkipTLSVerify", true}});
  EXPECT_EQ(cause_fields(expect(422, api().post(kApiServices, local_with_ca))),
            (std::vector<std::string>{"spec.caBundle", "spec.insecureSkipTLSVerify"}));

  json::value both = api_service("v1beta2", kGroup,
                                 {{"service", service_ref()}, {"caBundle", "Zm9v"}, {"insecureSkipTLSVerify", true}});
  EXPECT_EQ(cause_fields(expect(422, api().post(kApiServices, both))),
            std::vector<std::string>{"spec.insecureSkipTLSVerify"});

  json::value no_service_name = api_service("v1beta2", kGroup, {{"service", json::object{{"namespace", kNamespace}}}});
  EXPECT_EQ(cause_fields(expect(422, api().post(kApiServices, no_service_name))),
            std::vector<std::string>{"spec.service.name"});

  json::value empty_group = api_service("v2", "");
  EXPECT_EQ(cause_fields(expect(422, api().post(kApiServices, empty_group))), std::vector<std::string>{"spec.group"});
}

TEST_F(AggregationTest, TheFrontProxyIsPublishedForAggregatedServers) {
  json::value cm = get_ok("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
  EXPECT_NE(str(cm, "/data/requestheader-client-ca-file").find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_EQ(str(cm, "/data/requestheader-allowed-names"), R"(["front-proxy-client"])");
  EXPECT_EQ(str(cm, "/data/requestheader-username-headers"), R"(["X-Remote-User"])");
  EXPECT_EQ(str(cm, "/data/requestheader-group-headers"), R"(["X-Remote-Group"])");
  EXPECT_EQ(str(cm, "/data/requestheader-extra-headers-prefix"), R"(["X-Remote-Extra-"])");
}

// -- availability ---------------------------------------------------------------------

TEST_F(AggregationTest, ALocalApiServiceIsAvailable) {
  create(kApiServices, api_service("v1beta2", kGroup));
  EXPECT_TRUE(wait_condition("True", "Local"));
  // Its group is this server's own: nothing is proxied.
  EXPECT_EQ(api().get(std::string(kVersionPath) + "/clusterqueues").status, 404);
}

TEST_F(AggregationTest, AvailabilityFollowsTheServiceAndTheBackend) {
  auto backend = start_backend();
  create(kApiServices, api_service("v1beta2", kGroup, {{"service", service_ref()}, {"caBundle", backend->ca_bundle()}}));
  ASSERT_TRUE(wait_condition("False", "ServiceNotFound"));
  EXPECT_EQ(json::get_string(available_condition(), "message"), "service/kueuepp-visibility in \"kueuepp-system\" is not present");
  // Requests to an unavailable APIService get kube-aggregator's answer.
  HttpReply refused = api().get(std::string(kVersionPath) + "/clusterqueues");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.body, "service unavailable\n");

  create("/api/v1/namespaces/kueuepp-system/services", service(backend->port(), 8443));
  ASSERT_TRUE(wait_condition("False", "ServicePortError"));

  expect(200, api().put("/api/v1/namespaces/kueuepp-system/services/kueuepp-visibility",
                        [&] {
                          json::value svc = get_ok("/api/v1/namespaces/kueuepp-system/services/kueuepp-visibility");
                          svc.as_object()["spec"].as_object()["ports"].as_array()[0].as_object()["port"] = 443;
                          return svc;
                        }()));
  ASSERT_TRUE(wait_condition("True", "Passed"));
  EXPECT_EQ(json::get_string(available_condition(), "message"), "all checks passed");

  backend.reset();
  ASSERT_TRUE(wait_condition("False", "FailedDiscoveryCheck"));
  EXPECT_NE(json::get_string(available_condition(), "message").find("connection refused"), std::string::npos)
      << json::dump(available_condition());
  // Refused as unavailable, not tried.
  HttpReply down = api().get(std::string(kVersionPath) + "/clusterqueues");
  EXPECT_EQ(down.status, 503);
  EXPECT_EQ(down.body, "service unavailable\n");
}

// -- proxying ----------------------------------------------------------------------------

TEST_F(AggregationTest, GetIsProxiedWithPathQueryAndAnswer) {
  auto backend = start_backend();
  backend->on(std::string(kVersionPath) + "/clusterqueues/", [](const TestBackendServer::Request&) {
    return TestBackendServer::Answer{200, "application/json", R"({"kind":"PendingWorkloadsSummary","items":[]})", {}, false, ""};
  });
  register_backend(*backend);
  std::string target = std::string(kVersionPath) + "/clusterqueues/cq/pendingworkloads?limit=5&offset=1";
  HttpReply reply = api().get(target);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.body, R"({"kind":"PendingWorkloadsSummary","items":[]})");
  EXPECT_EQ(reply.header("content-type"), "application/json");
  EXPECT_EQ(reply.header("x-backend"), "test");
  auto seen = backend->received(std::string(kVersionPath) + "/clusterqueues/cq/pendingworkloads");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[0].target, target);
}

TEST_F(AggregationTest, PostIsProxiedWithItsBodyAndContentType) {
  auto backend = start_backend();
  backend->on(std::string(kVersionPath) + "/namespaces/", [](const TestBackendServer::Request& r) {
    return TestBackendServer::Answer{201, "application/json", r.body, {}, false, ""};
  });
  register_backend(*backend);
  std::string path = std::string(kVersionPath) + "/namespaces/default/things";
  HttpReply reply = api().request("POST", path, R"({"a":1})", "application/merge-patch+json");
  EXPECT_EQ(reply.status, 201);
  EXPECT_EQ(reply.body, R"({"a":1})");
  auto seen = backend->received(path);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].body, R"({"a":1})");
  EXPECT_EQ(seen[0].header_values("content-type"), std::vector<std::string>{"application/merge-patch+json"});
}

TEST_F(AggregationTest, TheBackendSeesTheFrontProxyAndNotTheCallersCredentials) {
  auto backend = start_backend();
  backend->on(std::string(kVersionPath) + "/clusterqueues", [](const TestBackendServer::Request&) {
    return TestBackendServer::Answer{200, "application/json", "{}", {}, false, ""};
  });
  register_backend(*backend);
  std::string path = std::string(kVersionPath) + "/clusterqueues";
  HttpReply reply = api().request("GET", path, {}, "application/json",
                                  {{"Authorization", "Bearer caller-secret"},
                                   {"X-Remote-User", "mallory"},
                                   {"X-Remote-Group", "system:masters-forged"},
                                   {"X-Remote-Extra-Scopes", "forged"}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  auto seen = backend->received(path);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].header_values("x-remote-user"), std::vector<std::string>{"kueuepp"});
  EXPECT_EQ(seen[0].header_values("x-remote-group"),
            (std::vector<std::string>{"system:masters", "system:authenticated"}));
  EXPECT_TRUE(seen[0].header_values("x-remote-extra-scopes").empty());
  EXPECT_TRUE(seen[0].header_values("authorization").empty());
  // The client certificate is the front proxy's, signed by the CA the ConfigMap publishes.
  EXPECT_EQ(seen[0].client_cn, "front-proxy-client");
  EXPECT_TRUE(seen[0].client_verified);
  // The availability check identifies itself as kube-aggregator does.
  auto checks = backend->received(kVersionPath);
  ASSERT_FALSE(checks.empty());
  EXPECT_EQ(checks[0].header_values("x-remote-user"), std::vector<std::string>{"system:kube-aggregator"});
}

TEST_F(AggregationTest, AWatchStreamsAsTheBackendWrites) {
  auto backend = start_backend();
  backend->on(std::string(kVersionPath) + "/clusterqueues", [](const TestBackendServer::Request&) {
    TestBackendServer::Answer a;
    a.stream = {"{\"type\":\"ADDED\",\"object\":{\"kind\":\"ClusterQueue\"}}\n"};
    return a;
  });
  register_backend(*backend);
  HttpConnection watch(port());
  auto head = watch.start_stream(std::string(kVersionPath) + "/clusterqueues?watch=true");
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  // The first event arrives while the backend still holds its stream open.
  auto line = watch.next_line(std::chrono::seconds(10));
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ClusterQueue\"}}");
  // Longer than the request timeout: a watch is not cut.
  std::this_thread::sleep_for(std::chrono::milliseconds(1800));
  backend->end_streams();
  EXPECT_FALSE(watch.next_line(std::chrono::seconds(10)).has_value());
  EXPECT_TRUE(watch.closed_by_peer(std::chrono::seconds(10)));
}

// -- discovery ------------------------------------------------------------------------

TEST_F(AggregationTest, DiscoveryListsTheAggregatedGroupAndItsResources) {
  auto backend = start_backend();
  register_backend(*backend);
  ASSERT_TRUE(wait_until([&] {
    json::value list = body_json(api().request("GET", "/apis", {}, "application/json",
                                               {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}}));
    return json::dump(list).find("\"clusterqueues\"") != std::string::npos;
  }));
  json::value aggregated = body_json(api().request(
      "GET", "/apis", {}, "application/json",
      {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}}));
  const json::value* found = nullptr;
  for (const auto& item : at(aggregated, "/items")->as_array()) {
    if (str(item, "/metadata/name") == kGroup) found = &item;
  }
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(str(*found, "/versions/0/version"), "v1beta2");
  EXPECT_EQ(str(*found, "/versions/0/freshness"), "Current");
  EXPECT_EQ(str(*found, "/versions/0/resources/0/resource"), "clusterqueues");
  EXPECT_EQ(str(*found, "/versions/0/resources/0/scope"), "Namespaced");

  std::string legacy = json::dump(get_ok("/apis"));
  EXPECT_NE(legacy.find("\"visibility.kueue.x-k8s.io/v1beta2\""), std::string::npos);
  EXPECT_EQ(str(get_ok("/apis/visibility.kueue.x-k8s.io"), "/preferredVersion/version"), "v1beta2");
  // The group-version's own document is the backend's.
  EXPECT_EQ(str(get_ok(std::string(kVersionPath)), "/resources/0/name"), "clusterqueues");
}

// -- a failing backend ---------------------------------------------------------------------

TEST_F(AggregationTest, ACertificateNotSignedByTheCaBundleIsRefused) {
  auto backend = start_backend();
  TestBackendServer other({"elsewhere"});
  create("/api/v1/namespaces/kueuepp-system/services", service(backend->port()));
  create(kApiServices, api_service("v1beta2", kGroup, {{"service", service_ref()}, {"caBundle", other.ca_bundle()}}));
  // The check does not verify (as kube-aggregator's), so the APIService is Available...
  ASSERT_TRUE(wait_condition("True", "Passed"));
  // ...but requests verify against the caBundle.
  HttpReply reply = api().get(std::string(kVersionPath) + "/clusterqueues");
  EXPECT_EQ(reply.status, 503);
  EXPECT_NE(reply.body.find("x509: certificate signed by unknown authority"), std::string::npos) << reply.body;
}

TEST_F(AggregationTest, ABackendThatDoesNotSpeakTlsIsA503) {
  // A plain HTTP server where TLS is expected answers the handshake with an HTTP 400, as
  // Go's server does.
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 16), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::thread plain([listener] {
    for (;;) {
      int fd = ::accept(listener, nullptr, nullptr);
      if (fd < 0) return;
      char buf[1024];
      (void)::recv(fd, buf, sizeof buf, 0);
      std::string_view answer = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";
      (void)::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(fd);
    }
  });
  create("/api/v1/namespaces/kueuepp-system/services", service(ntohs(addr.sin_port)));
  create(kApiServices, api_service("v1beta2", kGroup, {{"service", service_ref()}, {"insecureSkipTLSVerify", true}}));
  ASSERT_TRUE(wait_condition("False", "FailedDiscoveryCheck"));
  EXPECT_NE(json::get_string(available_condition(), "message").find("tls: first record does not look like a TLS handshake"),
            std::string::npos)
      << json::dump(available_condition());
  EXPECT_EQ(api().get(std::string(kVersionPath) + "/clusterqueues").status, 503);
  ::shutdown(listener, SHUT_RDWR);
  ::close(listener);
  plain.join();
}

TEST_F(AggregationTest, GarbageFromTheBackendIsA503) {
  auto backend = start_backend();
  backend->on(std::string(kVersionPath) + "/clusterqueues", [](const TestBackendServer::Request&) {
    TestBackendServer::Answer a;
    a.garbage = "this is not HTTP at all\r\n\r\n";
    return a;
  });
  register_backend(*backend);
  HttpReply reply = api().get(std::string(kVersionPath) + "/clusterqueues");
  EXPECT_EQ(reply.status, 503);
  EXPECT_NE(reply.body.find("malformed HTTP response"), std::string::npos) << reply.body;
}

TEST_F(AggregationTest, AHangingBackendTimesOutWithoutHoldingUpOtherRequests) {
  auto backend = start_backend();
  backend->on(std::string(kVersionPath) + "/clusterqueues", [](const TestBackendServer::Request&) {
    TestBackendServer::Answer a;
    a.hang = true;
    return a;
  });
  register_backend(*backend);
  std::thread hung([&] {
    HttpReply reply = kueuepp::testing::http(port(), "GET", std::string(kVersionPath) + "/clusterqueues");
    EXPECT_EQ(reply.status, 504);
    EXPECT_EQ(str(body_json(reply), "/reason"), "Timeout");
  });
  ASSERT_TRUE(wait_until([&] { return !backend->received(std::string(kVersionPath) + "/clusterqueues").empty(); }));
  // While the backend hangs, the server answers everything else.
  EXPECT_EQ(api().get("/api/v1/namespaces/default").status, 200);
  hung.join();
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
