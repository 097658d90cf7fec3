// The writer's transport over a real client and HTTP server: what a write asks of the
// client follows from the request (here: which writes may wait for a throttle step).

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <vector>

#include "actors/write_transport.hpp"
#include "kube/client/rate_limiter.hpp"
#include "tests/kube/client/client_fixture.hpp"

namespace kueuepp::actors {
namespace {

using namespace std::chrono_literals;
using kube::client::testing::TestRequest;
using kube::client::testing::TestResponse;
using kube::client::testing::TestServer;
using Clock = std::chrono::steady_clock;

struct Arrivals {
  std::mutex mutex;
  std::vector<Clock::time_point> at;
};

std::unique_ptr<TestServer> recording_server(Arrivals& arrivals) {
  return TestServer::start([&arrivals](const TestRequest&) {
    std::lock_guard lock(arrivals.mutex);
    arrivals.at.push_back(Clock::now());
    return TestResponse::json(
        200, R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"ns","resourceVersion":"2"}})");
  });
}

/// 10 writes a second, no burst beyond one, and throttle steps of `step`.
std::unique_ptr<kube::client::Client> stepped_client(const TestServer& server, std::chrono::milliseconds step) {
  kube::client::ClientOptions options = kube::client::testing::fast_options();
  options.qps = 10;
  options.burst = 1;
  options.throttle_granularity = step;
  return kube::client::testing::make_client(server.url(), options);
}

messages::WriteRequest status_write(bool urgent) {
  messages::WriteRequest req;
  req.kind = messages::ObjectKind::Workload;
  req.verb = messages::WriteVerb::MergePatchStatus;
  req.ns = "ns";
  req.name = "w";
  req.body = std::make_shared<const json::value>(json::object{{"status", json::object{}}});
  req.urgent = urgent;
  return req;
}

/// Sends `req` and waits for its outcome.
messages::WriteOutcome write(const WriteTransport& transport, const messages::WriteRequest& req) {
  kube::client::testing::Waiter<messages::WriteOutcome> done;
  transport(req, done.callback());
  return done.get();
}

/// When a write was handed to the transport and when the server received it.
struct Timing {
  bool ok = false;
  Clock::time_point called{};
  Clock::time_point arrived{};
};

/// Through a client with throttle steps of `step`: one urgent write spends the burst,
/// then a write (`urgent` or not) that must wait about 100 ms for its token.
Timing throttled_write(std::chrono::milliseconds step, bool urgent) {
  Arrivals arrivals;
  auto server = recording_server(arrivals);
  auto client = stepped_client(*server, step);
  WriteTransport transport = client_write_transport(*client);
  Timing t;
  if (!write(transport, status_write(true)).ok) return t;
  t.called = Clock::now();
  t.ok = write(transport, status_write(urgent)).ok;
  std::lock_guard lock(arrivals.mutex);
  if (arrivals.at.size() != 2) t.ok = false;
  if (t.ok) t.arrived = arrivals.at[1];
  return t;
}

TEST(ClientWriteTransport, AWriteThatIsNotUrgentGoesOutOnTheClientsThrottleStep) {
  // It goes out on the next whole two seconds of the steady clock, never before (so this
  // holds under any load).
  const Timing t = throttled_write(2s, false);
  ASSERT_TRUE(t.ok);
  EXPECT_GE(t.arrived, kube::client::round_up_to_step(t.called, 2s));
}

TEST(ClientWriteTransport, AnUrgentWriteKeepsItsExactTurn) {
  // Put on a step of a minute, it would wait for that instead (up to the waiter's 10 s,
  // failing; it would pass by chance once in twelve).
  const Timing t = throttled_write(60s, true);
  ASSERT_TRUE(t.ok);
  EXPECT_LT(t.arrived - t.called, 5s);
}

}  // namespace
}  // namespace kueuepp::actors
