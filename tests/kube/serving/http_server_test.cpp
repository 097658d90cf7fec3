// The server core over real loopback sockets: a slow client is cut off, oversized
// headers and bodies get 431 and 413, thousands of idle connections cost no thread, an
// answer may come later from another thread (and after stop(), it is dropped), streams,
// and a stop that does not wait for the handler.

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kube/serving/http_server.hpp"
#include "tests/support/raw_http_client.hpp"

namespace kueuepp::kube::serving {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

using Client = test_support::RawHttpClient;

std::unique_ptr<HttpServer> start(ServerOptions options, Handler handler) {
  auto server = HttpServer::start("127.0.0.1:0", std::move(options), std::move(handler));
  EXPECT_TRUE(server) << server.error().message;
  return std::move(*server);
}

Handler echo() {
  return [](Request request, Reply reply) { reply(Response{200, "text/plain", request.target, {}, false}); };
}

std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

/// Waits (bounded) until `done` holds.
template <class Done>
bool eventually(Done done) {
  for (int i = 0; i < 2000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return false;
}

TEST(HttpServer, KeepsTheConnectionAliveForTheNextRequest) {
  auto server = start({}, echo());
  Client c(server->port());
  c.get("/one");
  EXPECT_NE(c.head().find("200 OK"), std::string::npos);
  EXPECT_EQ(c.read_until("/one"), "/one");
  c.get("/two");
  EXPECT_NE(c.head().find("200 OK"), std::string::npos);
  EXPECT_EQ(c.read_until("/two"), "/two");
  EXPECT_EQ(server->stats().connections, 1u);
}

TEST(HttpServer, AClientThatSendsHalfAHeaderIsClosedAfterTheReadTimeout) {
  ServerOptions options;
  options.read_timeout = 200ms;
  auto server = start(options, echo());
  Client c(server->port());
  c.send("GET /slow HTTP/1.1\r\nHost: x\r\n");
  EXPECT_EQ(c.head(), "closed");
}

TEST(HttpServer, AnOversizedHeaderGets431) {
  ServerOptions options;
  options.max_header_bytes = 1024;
  auto server = start(options, echo());
  Client c(server->port());
  c.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n");
  EXPECT_NE(c.head().find("431"), std::string::npos);
}

TEST(HttpServer, AnOversizedBodyGets413WithoutBeingRead) {
  ServerOptions options;
  options.max_body_bytes = 10'000;
  options.body_limit = [](std::string_view path) -> std::uint64_t { return path == "/large" ? 10'000 : 100; };
  auto server = start(options, echo());
  Client small(server->port());
  small.send("POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n");
  EXPECT_NE(small.head().find("413"), std::string::npos);
  Client large(server->port());
  large.send("POST /large HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + std::string(1000, 'b'));
  const std::string head = large.head();
  EXPECT_NE(head.find("200 OK"), std::string::npos) << head;
}

TEST(HttpServer, MalformedRequestsGet400) {
  auto server = start({}, echo());
  Client c(server->port());
  c.send("NOT HTTP AT ALL\r\n\r\n");
  EXPECT_NE(c.head().find("400"), std::string::npos);
}

/// Raises the soft limit on open files to `wanted` if the hard limit allows it.
bool allow_open_files(rlim_t wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  if (limit.rlim_cur >= wanted) return true;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < wanted) return false;
  limit.rlim_cur = wanted;
  return setrlimit(RLIMIT_NOFILE, &limit) == 0;
}

TEST(HttpServer, TwoThousandIdleConnectionsCostNoThread) {
  // Both ends of every connection are in this process.
  if (!allow_open_files(4200)) GTEST_SKIP() << "the hard limit on open files is below 4,200";
  ServerOptions options;
  options.max_connections = 4096;
  auto server = start(options, echo());
  const std::size_t threads = thread_count();
  asio::io_context io;
  std::vector<tcp::socket> idle;
  const tcp::endpoint at(asio::ip::make_address("127.0.0.1"), server->port());
  for (int i = 0; i < 2000; ++i) {
    idle.emplace_back(io);
    idle.back().connect(at);
  }
  ASSERT_TRUE(eventually([&] { return server->stats().open_connections == 2000; })) << server->stats().open_connections;
  EXPECT_EQ(thread_count(), threads);
  Client c(server->port());
  c.get("/still-served");
  EXPECT_NE(c.head().find("200 OK"), std::string::npos);
}

TEST(HttpServer, ConnectionsBeyondTheCapAreClosed) {
  ServerOptions options;
  options.max_connections = 1;
  auto server = start(options, echo());
  Client first(server->port());
  first.get("/first");
  EXPECT_NE(first.head().find("200 OK"), std::string::npos);
  Client second(server->port());
  second.get("/second");
  EXPECT_EQ(second.head(), "closed");
  EXPECT_EQ(server->stats().refused, 1u);
}

TEST(HttpServer, AnAnswerMayComeLaterFromAnotherThread) {
  std::promise<Reply> handed;
  auto server = start({}, [&handed](Request, Reply reply) { handed.set_value(std::move(reply)); });
  Client c(server->port());
  c.get("/later");
  auto reply = handed.get_future().get();
  std::thread([reply] { reply(Response{201, "text/plain", "made", {}, false}); }).join();
  EXPECT_NE(c.head().find("201"), std::string::npos);
}

TEST(HttpServer, AnAnswerThatDoesNotComeIsTheTimeoutResponse) {
  ServerOptions options;
  options.answer_timeout = 100ms;
  options.timeout_response = Response{503, "text/plain", "late\n", {}, true};
  std::mutex mutex;
  std::vector<Reply> kept;  // never answered
  auto server = start(options, [&](Request, Reply reply) {
    std::lock_guard lock(mutex);
    kept.push_back(std::move(reply));
  });
  Client c(server->port());
  c.get("/never");
  EXPECT_NE(c.head().find("503"), std::string::npos);
  std::lock_guard lock(mutex);
  ASSERT_EQ(kept.size(), 1u);
  kept.front()(Response{});  // too late: dropped
}

TEST(HttpServer, AStreamSendsBytesAfterItsHeadUntilClosed) {
  auto server = start({}, [](Request, Reply reply) {
    auto sink = reply.stream("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
    sink->send("one\n\n", [sink](bool written) {
      if (!written) return;
      sink->after(10ms, [sink] {
        sink->send("two\n\n");
        sink->close();
      });
    });
  });
  Client c(server->port());
  c.get("/stream");
  EXPECT_NE(c.head().find("text/event-stream"), std::string::npos);
  EXPECT_EQ(c.read_until("\n\n"), "one\n\n");
  EXPECT_EQ(c.read_until("\n\n"), "two\n\n");
  EXPECT_EQ(c.read_until("\n\n"), "closed");
}

TEST(HttpServer, AnAnswerOrAStreamAfterStopIsDropped) {
  std::mutex mutex;
  std::vector<Reply> kept;
  std::shared_ptr<StreamSink> sink;
  auto server = start({}, [&](Request request, Reply reply) {
    std::lock_guard lock(mutex);
    if (request.target == "/stream") {
      sink = reply.stream("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
    } else {
      kept.push_back(std::move(reply));
    }
  });
  Client waiting(server->port());
  waiting.get("/wait");
  Client streaming(server->port());
  streaming.get("/stream");
  EXPECT_NE(streaming.head().find("200 OK"), std::string::npos);
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return kept.size() == 1;
  }));
  server->stop();
  server.reset();  // the io_context and the server are gone
  std::lock_guard lock(mutex);
  kept.front()(Response{200, "text/plain", "too late", {}, false});
  sink->send("too late", [](bool) { ADD_FAILURE() << "a write after stop() ran"; });
  sink->after(1ms, [] { ADD_FAILURE() << "a timer after stop() ran"; });
  sink->close();
  EXPECT_EQ(waiting.head(), "closed");
}

TEST(HttpServer, StopWithRequestsInFlightIsPrompt) {
  ServerOptions options;
  options.answer_timeout = 60s;  // far longer than the bound below
  std::mutex mutex;
  std::vector<Reply> kept;
  auto server = start(options, [&](Request, Reply reply) {
    std::lock_guard lock(mutex);
    kept.push_back(std::move(reply));
  });
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(std::make_unique<Client>(server->port()));
    clients.back()->get("/unanswered");
  }
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return kept.size() == 5;
  }));
  auto stopped = std::async(std::launch::async, [&] { server->stop(); });
  ASSERT_EQ(stopped.wait_for(20s), std::future_status::ready) << "stop() waited for the handler";
  for (auto& c : clients) EXPECT_EQ(c->head(), "closed");
}

}  // namespace
}  // namespace kueuepp::kube::serving
