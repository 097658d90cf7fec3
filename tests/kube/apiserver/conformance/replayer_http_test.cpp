// The replayer end to end: trace → client raw layer → HTTP → a test double server.

#include <gtest/gtest.h>

#include <atomic>

#include "kube/apiserver/conformance/client_transport.hpp"
#include "kube/apiserver/conformance/replayer.hpp"
#include "tests/kube/client/support/test_server.hpp"

namespace kueuepp::kube::conformance {
namespace {

using client::testing::TestRequest;
using client::testing::TestResponse;
using client::testing::TestServer;

const char* kTrace = R"({"name": "h01-double", "steps": [
  {"request": {"method": "GET", "path": "/healthz", "headers": {"Accept": "application/json"}, "body": null},
   "response": {"status": 200, "body": "ok"}},
  {"request": {"method": "POST", "path": "/api/v1/namespaces",
               "headers": {"Accept": "application/json", "Content-Type": "application/json"},
               "body": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ct-h01"}}},
   "response": {"status": 201, "body": {"kind": "Namespace", "metadata": {"name": "ct-h01", "uid": "<uid>",
                "resourceVersion": "<rv>", "managedFields": "whatever"}},
                "warnings": ["unknown field \"spec.<rv>\""]},
   "capture": {"rv0": "metadata.resourceVersion"},
   "ignore": ["**.managedFields"]},
  {"request": {"method": "GET", "path": "/api/v1/namespaces?watch=1&resourceVersion=${rv0}&timeoutSeconds=1",
               "headers": {"Accept": "application/json"}, "body": null},
   "response": {"status": 200, "events": [
      {"type": "MODIFIED", "object": {"metadata": {"name": "ct-h01", "labels": {"a.b": "c"}}}},
      {"type": "DELETED", "object": {"metadata": {"name": "ct-h01"}}}]},
   "asserts": []},
  {"request": {"method": "GET", "path": "/api/v1/namespaces/ct-h01", "headers": {"Accept": "application/json"}, "body": null},
   "response": {"status": 404, "body": {"kind": "Status", "reason": "NotFound"}},
   "poll": {"timeout_seconds": 5, "interval_seconds": 0.05}}
]})";

class DoubleServer {
 public:
  TestResponse answer(const TestRequest& r) {
    if (r.target == "/healthz") {
      TestResponse ok;
      ok.headers = {{"Content-Type", "text/plain; charset=utf-8"}};
      ok.body = "ok";
      return ok;
    }
    if (r.method == "POST") {
      auto created = TestResponse::json(201, R"({"kind":"Namespace","metadata":{"name":"ct-h01","uid":"6b1f","resourceVersion":"41"}})");
      created.headers.emplace_back("Warning", R"(299 - "unknown field \"spec.foo\"")");
      return created;
    }
    if (r.target.find("watch=1") != std::string::npos) {
      watch_target = r.target;
      TestResponse stream;
      stream.chunks = {R"({"type":"MODIFIED","object":{"metadata":{"name":"ct-h01","labels":{"a.b":"c"},"resourceVersion":"42"}}})" "\n"
                       R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"43"}}})" "\n"
                       R"({"type":"DEL)",
                       R"(ETED","object":{"metadata":{"name":"ct-h01","resourceVersion":"44"}}})" "\n"};
      return stream;
    }
    // The namespace disappears after a few polls (asynchronous deletion).
    if (gets++ < 3) return TestResponse::json(200, R"({"kind":"Namespace","metadata":{"name":"ct-h01"}})");
    return TestResponse::json(404, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})");
  }

  std::atomic<int> gets{0};
  std::string watch_target;
};

TEST(ReplayerHttp, ReplaysATraceAgainstARealHttpServerThroughTheClient) {
  DoubleServer double_server;
  auto server = TestServer::start([&](const TestRequest& r) { return double_server.answer(r); });
  client::ClientConfig config;
  config.server = server->url();
  auto client = client::Client::create(config, ClientReplayTransport::replay_options());
  ASSERT_TRUE(client);
  ClientReplayTransport transport(**client);

  auto trace = parse_trace(kTrace, "h01.json");
  ASSERT_TRUE(trace) << trace.error().message;
  const TraceResult result = replay_trace(*trace, transport);
  EXPECT_TRUE(result.passed) << result.failure;
  EXPECT_EQ(double_server.watch_target, "/api/v1/namespaces?watch=1&resourceVersion=41&timeoutSeconds=1");
  EXPECT_EQ(double_server.gets.load(), 4);

  const auto requests = server->requests();
  EXPECT_EQ(requests.at(1).header("Content-Type"), "application/json");
  EXPECT_EQ(requests.at(1).body, R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ct-h01"}})");
}

TEST(ReplayerHttp, ReportsTheFirstDifferenceAgainstAWrongServer) {
  auto server = TestServer::start([](const TestRequest& r) {
    if (r.target == "/healthz") {
      TestResponse ok;
      ok.headers = {{"Content-Type", "text/plain"}};
      ok.body = "ok";
      return ok;
    }
    return TestResponse::json(201, R"({"kind":"Namespace","metadata":{"name":"ct-h01","uid":"","resourceVersion":"1"}})");
  });
  client::ClientConfig config;
  config.server = server->url();
  auto client = client::Client::create(config, ClientReplayTransport::replay_options());
  ASSERT_TRUE(client);
  ClientReplayTransport transport(**client);
  const TraceResult result = replay_trace(*parse_trace(kTrace, "h01.json"), transport);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(result.failure, R"(step 2 POST /api/v1/namespaces: body at metadata.uid: expected "<uid>", actual "")");
}

TEST(ReplayerHttp, AnUnreachableServerFailsWithTheTransportError) {
  std::uint16_t port;
  {
    auto server = TestServer::start([](const TestRequest&) { return TestResponse{}; });
    port = server->port();
  }
  client::ClientConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  auto client = client::Client::create(config, ClientReplayTransport::replay_options());
  ASSERT_TRUE(client);
  ClientReplayTransport transport(**client);
  const TraceResult result = replay_trace(*parse_trace(kTrace, "h01.json"), transport);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("step 1 GET /healthz: request failed:"), std::string::npos) << result.failure;
  EXPECT_NE(result.failure.find("connecting to 127.0.0.1"), std::string::npos) << result.failure;
}

}  // namespace
}  // namespace kueuepp::kube::conformance
