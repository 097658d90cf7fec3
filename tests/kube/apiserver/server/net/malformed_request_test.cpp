// Malformed requests over raw sockets: garbage request lines, bad HTTP framing, huge
// headers, truncated bodies, pipelining, bad paths, unknown groups and versions. The
// server answers with an error (a Kubernetes Status where it can parse the request) or
// closes the connection, keeps serving everyone else, and its store is unchanged.

#include <sys/socket.h>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kCms = "/api/v1/namespaces/team/configmaps";

class ApiServerMalformedRequests : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
    create(kCms, json::object{{"metadata", json::object{{"name", "cm"}}}, {"data", json::object{{"k", "v"}}}});
    before_ = state();
  }
  void TearDown() override {
    if (server_) {
      // Nothing a malformed request did reached the store, and the server still serves.
      EXPECT_EQ(state(), before_);
    }
    ServerTest::TearDown();
  }
  /// Everything the tests could have touched, with the cluster's resourceVersion.
  std::string state() {
    std::string out;
    for (const char* c : {"/api/v1/namespaces", "/api/v1/configmaps", "/apis/batch/v1/jobs"}) {
      ApiClient fresh(port());
      HttpReply r = fresh.get(c);
      EXPECT_EQ(r.status, 200) << c;
      out += r.body;
    }
    return out;
  }
  /// Sends bytes on a new connection and reads the answer (nullopt: none).
  std::optional<HttpReply> raw(std::string_view bytes, HttpConnection* keep = nullptr) {
    HttpConnection local(port());
    HttpConnection& conn = keep != nullptr ? *keep : local;
    EXPECT_TRUE(conn.send_raw(bytes));
    return conn.read_reply(5s);
  }
  /// The answer is an error of `status` and the connection is then closed.
  void expect_rejected(std::string_view bytes, int status) {
    HttpConnection conn(port());
    ASSERT_TRUE(conn.send_raw(bytes));
    auto reply = conn.read_reply(5s);
    ASSERT_TRUE(reply) << "no answer to: " << bytes.substr(0, 80);
    EXPECT_EQ(reply->status, status) << bytes.substr(0, 80) << " -> " << reply->body;
    EXPECT_TRUE(conn.closed_by_peer(5s)) << bytes.substr(0, 80);
  }
  /// The connection is closed with or without an HTTP error answer (never a success).
  void expect_refused(std::string_view bytes) {
    HttpConnection conn(port());
    conn.send_raw(bytes);
    auto reply = conn.read_reply(5s);
    if (reply) {
      EXPECT_GE(reply->status, 400) << bytes.substr(0, 80);
      EXPECT_LT(reply->status, 500) << bytes.substr(0, 80);
    }
    EXPECT_TRUE(conn.closed_by_peer(5s)) << bytes.substr(0, 80);
  }

  std::string before_;
};

TEST_F(ApiServerMalformedRequests, GarbageRequestLines) {
  expect_refused("HELLO\r\n\r\n");
  expect_refused("GET\r\n\r\n");
  expect_refused("GET /api HTTP/1.1 extra\r\nHost: x\r\n\r\n");
  expect_refused(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11));  // a TLS ClientHello
  expect_refused(std::string("GET /\0api HTTP/1.1\r\n\r\n", 22));
  // Other clients were served all along.
  EXPECT_EQ(api().get(kCms).status, 200);
}

TEST_F(ApiServerMalformedRequests, BadFraming) {
  expect_rejected("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}", 400);
  expect_rejected("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400);
  expect_rejected("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}x",
                  400);
  expect_rejected("GET /api HTTP/1.1\r\nHost: x\r\nNo colon in this header\r\n\r\n", 400);
  expect_rejected("GET /api HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n", 400);
  // Chunked bodies with a bad chunk size or a missing terminator.
  expect_rejected("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
                  400);
  expect_refused("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n");
  // A well-framed chunked body is fine (and judged on its content).
  HttpConnection conn(port());
  ASSERT_TRUE(conn.send_raw("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            "Transfer-Encoding: chunked\r\n\r\n4\r\nnot \r\n4\r\njson\r\n0\r\n\r\n"));
  auto reply = conn.read_reply(5s);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 400);
  EXPECT_EQ(str(body_json(*reply), "/reason"), "BadRequest");
}

TEST_F(ApiServerMalformedRequests, HugeHeaders) {
  std::string huge = "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string((1 << 20) + 16, 'a') + "\r\n\r\n";
  HttpConnection conn(port());
  conn.send_raw(huge);  // the server may stop reading (and close) before all of it is sent
  auto reply = conn.read_reply(10s);
  if (reply) {
    EXPECT_EQ(reply->status, 431);
  }
  EXPECT_TRUE(conn.closed_by_peer(10s));
  // Many headers, each small, adding up.
  std::string many = "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 20000; ++i) many += "X-H" + std::to_string(i) + ": " + std::string(60, 'b') + "\r\n";
  many += "\r\n";
  HttpConnection conn2(port());
  conn2.send_raw(many);
  auto reply2 = conn2.read_reply(10s);
  if (reply2) {
    EXPECT_EQ(reply2->status, 431);
  }
  EXPECT_TRUE(conn2.closed_by_peer(10s));
  // A long but acceptable request line works.
  EXPECT_EQ(api().get(std::string(kCms) + "?ignored=" + std::string(8000, 'x')).status, 200);
}

TEST_F(ApiServerMalformedRequests, TruncatedBodies) {
  // The client announces 100 bytes, sends 10 and stops sending: no answer, the
  // connection is closed, nothing is created.
  HttpConnection conn(port());
  ASSERT_TRUE(conn.send_raw("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            "Content-Length: 100\r\n\r\n{\"metadata\""));
  ::shutdown(conn.fd(), SHUT_WR);
  auto reply = conn.read_reply(5s);
  EXPECT_TRUE(!reply || reply->status >= 400);
  EXPECT_TRUE(conn.closed_by_peer(5s));

  // A client that stalls in the middle of a body does not hold up anyone else.
  HttpConnection stalled(port());
  ASSERT_TRUE(stalled.send_raw("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               "Content-Length: 1000\r\n\r\n{\"metadata\":{\"name\":\"never\"}"));
  for (int i = 0; i < 20; ++i) ASSERT_EQ(api().get(kCms).status, 200);
  EXPECT_EQ(api().get(std::string(kCms) + "/never").status, 404);
  stalled.close();
}

TEST_F(ApiServerMalformedRequests, PipelinedRequestsAreAnsweredInOrder) {
  HttpConnection conn(port());
  std::string batch;
  for (int i = 0; i < 10; ++i) {
    batch += "GET " + std::string(kCms) + (i % 2 == 0 ? "/cm" : "/missing") + " HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n";
  }
  ASSERT_TRUE(conn.send_raw(batch));
  for (int i = 0; i < 10; ++i) {
    auto reply = conn.read_reply(5s);
    ASSERT_TRUE(reply) << i;
    EXPECT_EQ(reply->status, i % 2 == 0 ? 200 : 404) << i;
  }
  // HTTP/1.0 without Host: answered, then closed.
  auto old = raw("GET /api/v1/namespaces/team HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->status, 200);
}

TEST_F(ApiServerMalformedRequests, BadPathsAndUnknownApis) {
  auto status_of = [&](std::string_view method, std::string_view target) {
    HttpReply r = api().request(method, target);
    return r.status;
  };
  // Percent-encoding that does not decode: 400 with a Status.
  HttpReply bad = api().get("/api/v1/namespaces/%zz/configmaps");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(str(body_json(bad), "/kind"), "Status");
  EXPECT_EQ(status_of("GET", "/api/v1/namespaces/team/configmaps/%"), 400);
  // Unknown groups, versions, resources and subresources.
  for (const char* target : {"/api/v2/namespaces", "/apis/batch/v2/jobs", "/apis/nope.example.com/v1/things",
                             "/apis/batch/v1/frobs", "/api/v1/namespaces/team/frobs/x",
                             "/api/v1/namespaces/team/configmaps/cm/status", "/api/v1/namespaces/team/configmaps/cm/a/b/c",
                             "/apis/batch/v1/namespaces/team/jobs/j/log", "/notapi", "/apis/batch/v1/namespaces/team/jobs/j/status/x"}) {
    EXPECT_EQ(status_of("GET", target), 404) << target;
  }
  // Namespaced names need a namespace; cluster-scoped kinds have none.
  EXPECT_EQ(status_of("GET", "/api/v1/configmaps/cm"), 404);
  EXPECT_EQ(status_of("GET", "/api/v1/namespaces/team/namespaces/x"), 404);
  // Unknown methods.
  EXPECT_EQ(status_of("BREW", kCms), 405);
  EXPECT_EQ(status_of("OPTIONS", std::string(kCms) + "/cm"), 405);
  EXPECT_EQ(status_of("DELETE", "/api/v1/namespaces/team/configmaps/cm/status"), 404);
  // Odd but valid queries are tolerated.
  EXPECT_EQ(status_of("GET", std::string(kCms) + "?&&=&x&%zz=1"), 200);
  // Writes with bodies of the wrong shape.
  EXPECT_EQ(api().request("POST", kCms, "[]").status, 400);
  EXPECT_EQ(api().request("POST", kCms, "{\"metadata\":[]}").status, 400);
  EXPECT_EQ(api().request("POST", kCms, "{\"metadata\":{\"name\":\"x\",\"labels\":[\"a\"]}}").status, 400);
  EXPECT_EQ(api().request("POST", kCms, "{\"metadata\":{\"name\":\"x\"},\"data\":{\"k\":1}}").status / 100, 4);
  EXPECT_EQ(api().request("PUT", std::string(kCms) + "/cm", "{\"metadata\":{\"name\":\"cm\",\"resourceVersion\":\"abc\"}}").status / 100,
            4);
  EXPECT_EQ(api().request("PUT", std::string(kCms) + "/cm", "{\"metadata\":{\"name\":\"cm\",\"generation\":\"x\"}}").status, 400);
  EXPECT_EQ(api().request("PATCH", std::string(kCms) + "/cm", "{\"metadata\":{\"finalizers\":\"x\"}}", "application/merge-patch+json").status,
            400);
  EXPECT_EQ(api().request("PATCH", std::string(kCms) + "/cm", "{\"metadata\":{\"name\":\"other\"}}", "application/merge-patch+json").status,
            400);
  EXPECT_EQ(api().request("PATCH", std::string(kCms) + "/cm", "[{\"op\":\"replace\",\"path\":\"/metadata\",\"value\":7}]",
                          "application/json-patch+json")
                .status,
            400);
  EXPECT_EQ(api().request("PATCH", std::string(kCms) + "/cm", "[{\"op\":\"replace\",\"path\":\"\",\"value\":[1]}]",
                          "application/json-patch+json")
                .status / 100,
            4);
}

TEST_F(ApiServerMalformedRequests, ManyBadClientsAtOnce) {
  std::vector<std::unique_ptr<HttpConnection>> conns;
  for (int i = 0; i < 40; ++i) {
    conns.push_back(std::make_unique<HttpConnection>(port()));
    switch (i % 4) {
      case 0: conns.back()->send_raw("GARBAGE\r\n\r\n"); break;
      case 1: conns.back()->send_raw("POST /api/v1/namespaces/team/configmaps HTTP/1.1\r\nContent-Length: 50\r\n\r\n{"); break;
      case 2: conns.back()->send_raw("GET /api/v1/namespaces/team/configmaps?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n"); break;
      default: break;  // connected and silent
    }
  }
  // Meanwhile ordinary requests are answered.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(api().get(std::string(kCms) + "/cm").status, 200);
  conns.clear();  // all of them hang up at once
  EXPECT_EQ(api().get(std::string(kCms) + "/cm").status, 200);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
