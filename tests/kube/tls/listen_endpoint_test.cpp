#include "kube/tls/listen_endpoint.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

namespace kueuepp::kube::tls {
namespace {

using boost::asio::ip::tcp;

TEST(ListenEndpoint, ReadsAnAddressAndAPort) {
  auto v4 = parse_listen_endpoint("127.0.0.1:8443");
  ASSERT_TRUE(v4) << v4.error().message;
  EXPECT_EQ(v4->address().to_string(), "127.0.0.1");
  EXPECT_EQ(v4->port(), 8443);
  auto any = parse_listen_endpoint("0.0.0.0:0");  // a free port, picked when bound
  ASSERT_TRUE(any);
  EXPECT_EQ(any->port(), 0);
}

TEST(ListenEndpoint, AnIpv6AddressInBracketsOrNot) {
  auto bracketed = parse_listen_endpoint("[::1]:9443");
  ASSERT_TRUE(bracketed) << bracketed.error().message;
  EXPECT_TRUE(bracketed->address().is_v6());
  EXPECT_EQ(bracketed->port(), 9443);
  auto bare = parse_listen_endpoint("::1:9443");  // the last colon separates the port
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_EQ(bare->address().to_string(), "::1");
}

TEST(ListenEndpoint, TheErrorQuotesTheFlagAndSaysWhatIsWrong) {
  EXPECT_EQ(parse_listen_endpoint("8443").error().message, "\"8443\" is not ADDR:PORT");
  EXPECT_EQ(parse_listen_endpoint(":8443").error().message.rfind("\":8443\": bad address: ", 0), 0u);
  EXPECT_EQ(parse_listen_endpoint("localhost:8443").error().message.rfind("\"localhost:8443\": bad address: ", 0), 0u);
  for (const char* port : {"", "x", "65536", "-1", "80x", "99999999999"}) {
    const std::string listen = std::string("127.0.0.1:") + port;
    auto parsed = parse_listen_endpoint(listen);
    ASSERT_FALSE(parsed) << listen;
    EXPECT_EQ(parsed.error().message, "\"" + listen + "\": bad port");
  }
}

TEST(ListenEndpoint, OpensAListeningSocketAndSaysWhyNot) {
  boost::asio::io_context io;
  tcp::acceptor first(io);
  ASSERT_TRUE(open_listening(first, *parse_listen_endpoint("127.0.0.1:0")));
  const auto bound = first.local_endpoint();
  EXPECT_NE(bound.port(), 0);
  EXPECT_TRUE(first.is_open());
  // The same port again, while the first listens: the system's reason.
  tcp::acceptor second(io);
  auto taken = open_listening(second, bound);
  ASSERT_FALSE(taken);
  EXPECT_FALSE(taken.error().message.empty());
}

}  // namespace
}  // namespace kueuepp::kube::tls
