// The plain response head is byte for byte what Boost.Beast writes for the same response
// (as HttpSession builds it), and leaves to Beast what it does not reproduce.

#include <memory>
#include <sstream>

#include <boost/beast/http.hpp>
#include <gtest/gtest.h>

#include "kube/apiserver/server/net/response_head.hpp"

namespace kueuepp::kube::server {
namespace {

namespace http = boost::beast::http;

std::string beast_bytes(const HttpResponse& response, bool keep_alive) {
  http::response<http::string_body> res(static_cast<http::status>(response.status), 11);
  res.set(http::field::content_type, response.content_type);
  res.set(http::field::cache_control, "no-cache, private");
  for (const auto& [name, value] : response.headers) res.insert(name, value);
  res.body() = response.body;
  res.keep_alive(keep_alive);
  res.prepare_payload();
  std::ostringstream out;
  out << res;
  return out.str();
}

HttpResponse response(int status, std::string type, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = std::move(type);
  r.body = std::move(body);
  return r;
}

TEST(PlainResponseHead, SameBytesAsBeast) {
  const std::vector<HttpResponse> cases = {
      response(200, "application/json", R"({"kind":"Workload"})"),
      response(201, "application/json", "{}"),
      response(200, "application/json", ""),
      response(404, "application/json", R"({"kind":"Status","code":404})"),
      response(409, "application/json", "x"),
      response(413, "application/json", "too large"),
      response(422, "application/json", std::string(5000, 'a')),
      response(429, "application/json", "slow down"),
      response(500, "text/plain; charset=utf-8", "boom"),
      response(503, "application/vnd.kubernetes.protobuf", "p"),
      response(299, "application/json", "unknown status"),
  };
  for (const auto& r : cases) {
    for (bool keep_alive : {true, false}) {
      auto head = plain_response_head(r, keep_alive);
      ASSERT_TRUE(head.has_value()) << r.status;
      EXPECT_EQ(*head + r.body, beast_bytes(r, keep_alive)) << r.status << " keep-alive " << keep_alive;
    }
  }
}

TEST(PlainResponseHead, LeavesTheRestToBeast) {
  HttpResponse warned = response(200, "application/json", "{}");
  warned.headers.emplace_back("Warning", "299 - \"deprecated\"");
  EXPECT_FALSE(plain_response_head(warned, true));
  EXPECT_FALSE(plain_response_head(response(204, "application/json", ""), true));
  EXPECT_FALSE(plain_response_head(response(304, "application/json", ""), true));
  EXPECT_FALSE(plain_response_head(response(101, "application/json", ""), true));
  EXPECT_FALSE(plain_response_head(response(200, " application/json", "{}"), true));
  EXPECT_FALSE(plain_response_head(response(200, "application/json\t", "{}"), true));
  EXPECT_FALSE(plain_response_head(response(200, "", "{}"), true));
}

// A body kept elsewhere (a stored version's text, shared_body) is the body: its length
// is the one announced, whatever `body` holds.
TEST(PlainResponseHead, ASharedBodyIsTheBody) {
  HttpResponse shared = response(200, "application/json", "ignored");
  shared.shared_body = std::make_shared<const std::string>(R"({"kind":"Workload","metadata":{}})");
  HttpResponse copied = response(200, "application/json", *shared.shared_body);
  for (bool keep_alive : {true, false}) {
    auto head = plain_response_head(shared, keep_alive);
    ASSERT_TRUE(head.has_value());
    EXPECT_EQ(*head + std::string(shared.body_text()), beast_bytes(copied, keep_alive));
  }
}

}  // namespace
}  // namespace kueuepp::kube::server
