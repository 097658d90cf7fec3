// The probe server over real sockets: the handler sees the whole target, an event stream
// sends its source's answer when it changes, and streams beyond the limit are refused.

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "cmd/standalone/probe_server.hpp"

namespace kueuepp::cmd {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

/// A client connection that reads what the server sends, up to a delimiter.
struct Client {
  asio::io_context io;
  tcp::socket socket{io};
  asio::streambuf buffer;

  explicit Client(std::uint16_t port) { socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port)); }
  void send_get(const std::string& target) {
    asio::write(socket, asio::buffer("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n"));
  }
  /// Everything up to and including `delimiter`, or an error after a generous 10 s.
  std::string read_until(const std::string& delimiter) {
    boost::system::error_code ec = asio::error::timed_out;
    std::size_t n = 0;
    asio::async_read_until(socket, buffer, delimiter, [&](boost::system::error_code e, std::size_t got) {
      ec = e;
      n = got;
    });
    io.restart();
    if (io.run_for(std::chrono::seconds(10)) == 0 || ec == asio::error::timed_out) {
      socket.cancel();
      io.restart();
      io.run();
      return "error: nothing within 10 s";
    }
    if (ec) return "error: " + ec.message();
    std::string out(asio::buffers_begin(buffer.data()), asio::buffers_begin(buffer.data()) + static_cast<long>(n));
    buffer.consume(n);
    return out;
  }
};

struct Source {
  std::mutex mutex;
  std::string body = "one";
  std::string last_target;
  int asked = 0;
};

std::unique_ptr<ProbeServer> start(Source& source, std::size_t max_streams = 4,
                                   std::chrono::milliseconds period = std::chrono::milliseconds(20)) {
  ProbeServerOptions options;
  options.timeout = std::chrono::seconds(5);
  options.max_streams = max_streams;
  options.streams.push_back(ProbeStream{"/stream", "state", "/state", period});
  auto server = ProbeServer::start(
      "127.0.0.1:0",
      [&source](const std::string& target, ProbeResponder respond) {
        std::lock_guard lock(source.mutex);
        source.last_target = target;
        ++source.asked;
        respond(200, "application/json", source.body);
      },
      options);
  EXPECT_TRUE(server) << server.error().message;
  return std::move(*server);
}

TEST(ProbeServer, TheHandlerIsGivenTheTargetWithItsQuery) {
  Source source;
  auto server = start(source);
  Client c(server->port());
  c.send_get("/debug/clusterqueues/cq?offset=5&limit=2");
  std::string head = c.read_until("\r\n\r\n");
  EXPECT_NE(head.find("200 OK"), std::string::npos) << head;
  std::lock_guard lock(source.mutex);
  EXPECT_EQ(source.last_target, "/debug/clusterqueues/cq?offset=5&limit=2");
}

TEST(ProbeServer, AStreamSendsTheSourceAgainOnlyWhenItChanged) {
  Source source;
  auto server = start(source);
  Client c(server->port());
  c.send_get("/stream");
  std::string head = c.read_until("\r\n\r\n");
  EXPECT_NE(head.find("text/event-stream"), std::string::npos) << head;
  EXPECT_EQ(c.read_until("\n\n"), "event: state\ndata: one\n\n");
  {
    std::lock_guard lock(source.mutex);
    source.body = "two";
  }
  // Unchanged answers are not sent again: the next event is the changed one.
  EXPECT_EQ(c.read_until("\n\n"), "event: state\ndata: two\n\n");
  server->stop();
}

TEST(ProbeServer, StreamsOfOneSourceShareItsAnswerForAPeriod) {
  Source source;
  // A period far longer than the test: the second stream is served the first one's answer.
  auto server = start(source, 4, std::chrono::seconds(60));
  Client first(server->port());
  first.send_get("/stream");
  EXPECT_NE(first.read_until("\r\n\r\n").find("text/event-stream"), std::string::npos);
  EXPECT_EQ(first.read_until("\n\n"), "event: state\ndata: one\n\n");
  Client second(server->port());
  second.send_get("/stream");
  second.read_until("\r\n\r\n");
  EXPECT_EQ(second.read_until("\n\n"), "event: state\ndata: one\n\n");
  {
    std::lock_guard lock(source.mutex);
    EXPECT_EQ(source.asked, 1);
  }
  server->stop();
}

TEST(ProbeServer, StreamsBeyondTheLimitAreRefused) {
  Source source;
  auto server = start(source, 1);
  Client first(server->port());
  first.send_get("/stream");
  EXPECT_NE(first.read_until("\n\n").find("event: state"), std::string::npos);
  Client second(server->port());
  second.send_get("/stream");
  std::string head = second.read_until("\r\n\r\n");
  EXPECT_NE(head.find("503"), std::string::npos) << head;
  server->stop();
}

}  // namespace
}  // namespace kueuepp::cmd
