// Answers are sent at once when the socket takes them whole, and the rest written as the
// client reads when it does not: a client that reads a ~10 MB list late gets all of it,
// while another client is served meanwhile, and its connection goes on (or closes, when
// it asked to) afterwards.

#include <thread>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kCms = "/api/v1/namespaces/team/configmaps";

class ApiServerResponseWrites : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
    // 12 ConfigMaps of 900 kB: their list is larger than loopback's socket buffers.
    for (int i = 0; i < 12; ++i) {
      create(kCms, json::object{{"metadata", json::object{{"name", "big-" + std::to_string(i)}}},
                                {"data", json::object{{"v", std::string(900000, static_cast<char>('a' + i))}}}});
    }
  }

  /// Sends a GET of the list and reads it only after `delay`.
  std::optional<HttpReply> late_list(HttpConnection& conn, std::string_view connection, std::chrono::milliseconds delay) {
    std::string request = "GET " + std::string(kCms) + " HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n";
    if (!connection.empty()) request += "Connection: " + std::string(connection) + "\r\n";
    request += "\r\n";
    EXPECT_TRUE(conn.send_raw(request));
    std::this_thread::sleep_for(delay);
    return conn.read_reply(20s);
  }

  static void expect_whole_list(const std::optional<HttpReply>& reply) {
    ASSERT_TRUE(reply);
    ASSERT_EQ(reply->status, 200);
    json::value list = body_json(*reply);
    ASSERT_TRUE(list.is_object()) << reply->body.size();
    ASSERT_EQ(list.at("items").as_array().size(), 12u);
    for (std::size_t i = 0; i < 12; ++i) {
      EXPECT_EQ(list.at("items").as_array()[i].at("data").at("v").as_string().size(), 900000u) << i;
    }
  }
};

TEST_F(ApiServerResponseWrites, ALateReaderGetsTheWholeAnswerAndKeepsItsConnection) {
  HttpConnection conn(port());
  std::string request = "GET " + std::string(kCms) + " HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n";
  ASSERT_TRUE(conn.send_raw(request));
  // While the answer waits for its reader, the server serves others.
  std::this_thread::sleep_for(200ms);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(api().get("/api/v1/namespaces/team").status, 200);
  expect_whole_list(conn.read_reply(20s));
  // The same connection goes on: a small answer, then the large one again.
  auto small = conn.request("GET", "/api/v1/namespaces/team");
  EXPECT_EQ(small.status, 200);
  expect_whole_list(late_list(conn, "", 100ms));
}

TEST_F(ApiServerResponseWrites, ConnectionCloseIsHonouredWhateverTheWritePath) {
  {
    HttpConnection conn(port());
    expect_whole_list(late_list(conn, "close", 100ms));
    EXPECT_TRUE(conn.closed_by_peer(5s));
  }
  {
    HttpConnection conn(port());
    auto reply = conn.request("GET", "/api/v1/namespaces/team", {}, "application/json", {{"Connection", "close"}});
    EXPECT_EQ(reply.status, 200);
    EXPECT_TRUE(conn.closed_by_peer(5s));
  }
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
