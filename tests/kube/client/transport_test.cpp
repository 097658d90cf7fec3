// The transport's streamed exchanges over real HTTP (kube/client/detail/transport.hpp).

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <future>
#include <memory>
#include <thread>

#include "kube/client/detail/transport.hpp"
#include "tests/kube/client/support/test_server.hpp"

namespace kueuepp::kube::client::detail {
namespace {

using testing::TestRequest;
using testing::TestResponse;
using testing::TestServer;

// Once a stream has ended, the exchange lets go of every callback: the client's stream
// operation holds the exchange, and callbacks holding that operation would form a cycle
// that outlives the stream (one leaked operation per watch the server ended).
TEST(TransportStream, AnEndedStreamReleasesItsCallbacks) {
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse r;
    r.chunks = {"a", "b"};
    return r;
  });
  boost::asio::io_context io;
  auto guard = boost::asio::make_work_guard(io);
  std::thread runner([&] { io.run(); });

  ClientConfig config;
  config.server = server->url();
  config.source = "test";
  auto transport = Transport::create(io, config, ClientOptions{});
  ASSERT_TRUE(transport) << transport.error().message;

  auto held = std::make_shared<int>(0);
  std::weak_ptr<int> watched = held;
  std::promise<bool> ended;
  StreamCallbacks callbacks;
  callbacks.on_head = [held](int, const Headers&) {};
  callbacks.on_chunk = [held](std::string_view) {};
  callbacks.on_drained = [held] {};
  callbacks.on_end = [&ended](Expected<void, ApiError> result) { ended.set_value(result.has_value()); };
  HttpRequest request;
  request.target = "/stream";
  auto exchange = (*transport)->stream(std::move(request), std::move(callbacks));
  held.reset();
  EXPECT_TRUE(ended.get_future().get());
  EXPECT_TRUE(watched.expired()) << "the exchange still holds the stream's callbacks";

  exchange.reset();
  guard.reset();
  (*transport)->close_idle();
  runner.join();
}

}  // namespace
}  // namespace kueuepp::kube::client::detail
