// Requests of every size around the session's read buffer (4 KiB, grown as needed) are
// read whole and answered in order, however the client's bytes arrive: in one send, in
// pieces that split the headers and the body, or pipelined behind one another.

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kCm = "/api/v1/namespaces/team/configmaps/cm";

class ApiServerRequestReads : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
    create("/api/v1/namespaces/team/configmaps", json::object{{"metadata", json::object{{"name", "cm"}}}});
  }

  /// The length of data.v in patch_request(size).
  static std::size_t value_length(std::size_t size) { return size > 200 ? size - 150 : 50; }

  /// A merge patch setting the ConfigMap's data.v; the request is about `size` bytes long.
  static std::string patch_request(std::size_t size, char fill) {
    std::string body = R"({"data":{"v":")" + std::string(value_length(size), fill) + R"("}})";
    return "PATCH " + std::string(kCm) +
           " HTTP/1.1\r\nHost: x\r\nContent-Type: application/merge-patch+json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  /// The ConfigMap's data.v as the answer to a patch gives it.
  static std::size_t answered_length(const std::optional<HttpReply>& reply) {
    if (!reply || reply->status != 200) return 0;
    return json::parse(reply->body)->at("data").at("v").as_string().size();
  }
};

TEST_F(ApiServerRequestReads, EverySizeInOneSend) {
  HttpConnection conn(port());
  for (std::size_t size : {200u, 511u, 512u, 513u, 600u, 1100u, 4095u, 4096u, 4097u, 9000u, 70000u, 300000u}) {
    std::string request = patch_request(size, static_cast<char>('a' + size % 26));
    ASSERT_TRUE(conn.send_raw(request)) << size;
    auto reply = conn.read_reply(5s);
    ASSERT_TRUE(reply) << size;
    EXPECT_EQ(reply->status, 200) << size << ": " << reply->body;
    EXPECT_EQ(answered_length(reply), value_length(size)) << size;
  }
}

TEST_F(ApiServerRequestReads, PiecesSplittingHeadersAndBody) {
  HttpConnection conn(port());
  for (std::size_t size : {600u, 4096u, 9000u}) {
    std::string request = patch_request(size, 'x');
    // Pieces of 7, 500 and 5000 bytes: the head arrives split, the body in several reads.
    for (std::size_t piece : {7u, 500u, 5000u}) {
      for (std::size_t at = 0; at < request.size(); at += piece) {
        ASSERT_TRUE(conn.send_raw(std::string_view(request).substr(at, piece)));
      }
      auto reply = conn.read_reply(5s);
      ASSERT_TRUE(reply) << size << "/" << piece;
      EXPECT_EQ(reply->status, 200) << size << "/" << piece;
    }
  }
}

TEST_F(ApiServerRequestReads, PipelinedAcrossTheBuffer) {
  HttpConnection conn(port());
  // Requests of 3000 bytes, sent together: the second starts inside the first read.
  std::string batch;
  for (char c : {'p', 'q', 'r', 's'}) batch += patch_request(3000, c);
  ASSERT_TRUE(conn.send_raw(batch));
  for (char c : {'p', 'q', 'r', 's'}) {
    auto reply = conn.read_reply(5s);
    ASSERT_TRUE(reply) << c;
    ASSERT_EQ(reply->status, 200) << c;
    EXPECT_EQ(json::parse(reply->body)->at("data").at("v").as_string()[0], c);
  }
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
