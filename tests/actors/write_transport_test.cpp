// The writer's transport over a real client and HTTP server: what a write asks of the
// client follows from the request (here: which writes may wait for a throttle step).

#include <gtest/gtest.h>

#include <atomic>
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
  // Urgent, or a rewrite that may wait for the client's next throttle step.
  req.intent = urgent ? messages::WriteIntent::Eviction : messages::WriteIntent::PendingExplanation;
  return req;
}

/// Sends `req` and waits for its outcome.
messages::WriteOutcome write(const WriteTransport& transport, const messages::WriteRequest& req) {
  kube::client::testing::Waiter<messages::WriteOutcome> done;
  transport(req, SendOptions{}, done.callback());
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

TEST(ClientWriteTransport, AnAnswerNobodyReadsIsNotDecodedButARefusalIs) {
  // The server answers success with a body that is not JSON: a write whose answer is
  // read fails to decode it; one whose answer is unread lands, with no object.
  std::atomic<int> status{201};  // read on the server's thread
  auto server = TestServer::start([&status](const TestRequest&) {
    if (status.load() == 409) {
      return TestResponse::json(409, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict",)"
                                     R"("message":"the object has been modified","code":409})");
    }
    return TestResponse::json(status.load(), "not json {");
  });
  auto client = kube::client::testing::make_client(server->url(), kube::client::testing::fast_options());
  WriteTransport transport = client_write_transport(*client);
  messages::WriteRequest read_answer = status_write(true);
  EXPECT_FALSE(write(transport, read_answer).ok);
  messages::WriteRequest unread = status_write(true);
  unread.intent = messages::WriteIntent::QueueStatus;  // nobody reads its answer
  auto landed = write(transport, unread);
  EXPECT_TRUE(landed.ok);
  EXPECT_EQ(landed.object, nullptr);
  status = 409;
  auto refused = write(transport, unread);
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.http_status, 409);
  EXPECT_EQ(refused.reason, "Conflict");
}

TEST(ClientWriteTransport, ACreateWrittenAsTextGoesOutAsItIs) {
  std::mutex mutex;
  std::vector<TestRequest> seen;
  auto server = TestServer::start([&](const TestRequest& r) {
    std::lock_guard lock(mutex);
    seen.push_back(r);
    return TestResponse::json(201, r.body);
  });
  auto client = kube::client::testing::make_client(server->url(), kube::client::testing::fast_options());
  WriteTransport transport = client_write_transport(*client);
  messages::WriteRequest req;
  req.kind = messages::ObjectKind::Event;
  req.verb = messages::WriteVerb::Create;
  req.ns = "team-a";
  req.name = "e1";
  const std::string text = R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e1","namespace":"team-a"},"count":1})";
  req.body_text = std::make_shared<const std::string>(text);
  auto landed = write(transport, req);
  ASSERT_TRUE(landed.ok) << landed.message;
  ASSERT_TRUE(landed.object);  // read unless asked not to
  EXPECT_EQ(landed.object->name(), "e1");
  std::lock_guard lock(mutex);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target.substr(0, seen[0].target.find('?')), "/api/v1/namespaces/team-a/events");
  EXPECT_EQ(seen[0].header("Content-Type"), "application/json");
  EXPECT_EQ(seen[0].body, text);
}

}  // namespace
}  // namespace kueuepp::actors
