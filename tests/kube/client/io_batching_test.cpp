// ClientOptions::io_batch_interval over real HTTP: what arrives while an io thread
// sleeps is handled in one wake-up, and nothing is lost or answered twice.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "kube/client/kinds/job.hpp"
#include "tests/kube/client/client_fixture.hpp"

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;
using namespace testing;
using resources::kJob;
using Clock = std::chrono::steady_clock;

std::string added_event(int i) {
  return R"({"type":"ADDED","object":{"kind":"Job","metadata":{"name":"j)" + std::to_string(i) +
         R"(","resourceVersion":")" + std::to_string(i + 1) + R"("}}})" + "\n";
}

/// How many groups the arrival times fall into, a group ending where the next arrival
/// comes more than `gap` later (callbacks of one wake-up run microseconds apart).
std::size_t groups(const std::vector<Clock::time_point>& arrivals, Clock::duration gap) {
  std::size_t n = arrivals.empty() ? 0 : 1;
  for (std::size_t i = 1; i < arrivals.size(); ++i) {
    if (arrivals[i] - arrivals[i - 1] > gap) ++n;
  }
  return n;
}

std::vector<Clock::time_point> watch_arrivals(std::chrono::microseconds interval) {
  constexpr int kEvents = 10;
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse w;
    for (int i = 0; i < kEvents; ++i) w.chunks.push_back(added_event(i));
    w.chunk_delay = 30ms;  // the server sends one event every 30 ms
    return w;
  });
  ClientOptions options = fast_options();
  options.io_batch_interval = interval;
  auto client = make_client(server->url(), options);
  std::mutex mutex;
  std::vector<Clock::time_point> arrivals;
  std::vector<std::string> names;
  Waiter<Result<void>> end;
  WatchHandlers handlers;
  handlers.on_event = [&](WatchEvent e) {
    std::lock_guard lock(mutex);
    arrivals.push_back(Clock::now());
    names.emplace_back(e.object.at("metadata").at("name").as_string());
  };
  handlers.on_end = end.callback();
  client->watch(kJob, "ns", {}, std::move(handlers));
  EXPECT_TRUE(end.get());
  client->shutdown();
  std::lock_guard lock(mutex);
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kEvents));
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(names[i], "j" + std::to_string(i));
  return arrivals;
}

TEST(ClientIoBatching, EventsThatArriveWhileTheIoThreadSleepsShareOneWakeUp) {
  // Sent 30 ms apart over 300 ms; with a 200 ms interval they come in two or three
  // bursts (the first event wakes the thread at once, the rest wait for its next look).
  const auto batched = watch_arrivals(200ms);
  EXPECT_LE(groups(batched, 10ms), 4u);
  // Without an interval each one is handled as it comes.
  const auto unbatched = watch_arrivals(0us);
  EXPECT_GE(groups(unbatched, 10ms), 8u);
}

TEST(ClientIoBatching, ManyConcurrentRequestsAreEachAnsweredOnceAndShutdownIsPrompt) {
  auto server = TestServer::start([](const TestRequest& r) {
    return TestResponse::json(200, job_json(r.target.substr(r.target.rfind('/') + 1)));
  });
  ClientOptions options = fast_options();
  options.io_batch_interval = 20ms;
  options.max_idle_connections = 8;
  auto client = make_client(server->url(), options);
  constexpr int kRequests = 300;
  std::atomic<int> ok{0}, answered{0};
  std::promise<void> all_done;
  for (int i = 0; i < kRequests; ++i) {
    client->get(kJob, "ns", "j" + std::to_string(i), [&, i](Result<Object> r) {
      if (r && r->name() == "j" + std::to_string(i)) ++ok;
      if (++answered == kRequests) all_done.set_value();
    });
  }
  ASSERT_EQ(all_done.get_future().wait_for(20s), std::future_status::ready);
  EXPECT_EQ(ok.load(), kRequests);

  // A timer and a request still in the air when the client shuts down: answered
  // (cancelled) once, and the sleeping io thread does not hold shutdown up.
  std::atomic<bool> fired{false};
  client->after(10s, [&] { fired = true; });
  Waiter<Result<Object>> late;
  client->get(kJob, "ns", "late", late.callback());
  const auto start = Clock::now();
  client->shutdown();
  EXPECT_LT(Clock::now() - start, 2s);
  auto result = late.get(1000ms);  // throws if the request was never answered
  if (result) {
    EXPECT_EQ(result->name(), "late");  // it made it before the shutdown
  } else {
    EXPECT_TRUE(result.error().is_cancelled()) << result.error().describe();
  }
  EXPECT_FALSE(fired.load());
}

}  // namespace
}  // namespace kueuepp::kube::client
