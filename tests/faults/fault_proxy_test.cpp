// The fault proxy between the project's API client and the real embedded API server
// (in-process, plain HTTP, port 0): every fault kind as a client sees it, and what the
// server saw (read directly, around the proxy). Client retries are off so that each
// injected fault reaches the test unmasked.

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kube/apiserver/server/api_server.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"
#include "tests/faults/fault_decider.hpp"
#include "tests/faults/fault_proxy.hpp"

extern char** environ;

namespace kueuepp::faults {
namespace {

namespace fs = std::filesystem;
namespace kc = kube::client;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kNs = "default";

kc::Object config_map(const std::string& name, const std::string& value = "v") {
  json::object data;
  data["key"] = value;
  json::object meta;
  meta["name"] = name;
  meta["namespace"] = kNs;
  json::object doc;
  doc["apiVersion"] = "v1";
  doc["kind"] = "ConfigMap";
  doc["metadata"] = std::move(meta);
  doc["data"] = std::move(data);
  return kc::Object(json::value(std::move(doc)));
}

/// Polls until `condition` holds; false after `timeout`.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = Clock::now() + timeout;
  while (!condition()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

/// What a watch delivered, filled on the client's io thread. Shared with the handlers:
/// a cancelled watch ends on the io thread after the test may have returned.
struct WatchLog : std::enable_shared_from_this<WatchLog> {
  std::mutex mutex;
  std::vector<kc::WatchEvent> events;
  std::vector<Clock::time_point> arrivals;
  std::optional<kc::Result<void>> end;

  kc::WatchHandlers handlers() {
    kc::WatchHandlers h;
    h.on_event = [self = shared_from_this()](kc::WatchEvent e) {
      std::lock_guard lock(self->mutex);
      self->events.push_back(std::move(e));
      self->arrivals.push_back(Clock::now());
    };
    h.on_end = [self = shared_from_this()](kc::Result<void> r) {
      std::lock_guard lock(self->mutex);
      self->end = std::move(r);
    };
    return h;
  }
  std::size_t size() {
    std::lock_guard lock(mutex);
    return events.size();
  }
  bool ended() {
    std::lock_guard lock(mutex);
    return end.has_value();
  }
  std::vector<std::string> names() {
    std::lock_guard lock(mutex);
    std::vector<std::string> out;
    for (const auto& e : events) out.emplace_back(json::get_string(*json::find(e.object, "metadata"), "name"));
    return out;
  }
};

class FaultProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kube::server::ApiServerOptions options;
    options.listen = "127.0.0.1:0";
    options.fsync = false;
    options.crd_paths = crd_paths();
    auto server = kube::server::ApiServer::start(options);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    direct_client_ = make_client(server_->url());
    direct_ = std::make_unique<kc::BlockingClient>(*direct_client_);
  }

  /// The Kueue CRDs cost time to load: only the tests of Kueue kinds ask for them.
  virtual std::vector<std::string> crd_paths() const { return {}; }

  void TearDown() override {
    for (auto& c : clients_) c->shutdown();
    if (proxy_) proxy_->stop();
    if (direct_client_) direct_client_->shutdown();
    if (server_) server_->stop();
  }

  /// Starts the proxy in front of the server with `plan` (JSON) and a client through it.
  void start_proxy(std::string_view plan_json) {
    auto plan = parse_fault_plan(plan_json);
    ASSERT_TRUE(plan) << plan.error().message;
    start_proxy(std::move(*plan));
  }

  void start_proxy(FaultPlan plan) {
    FaultProxyOptions options;
    options.upstream_port = server_->port();
    options.plan = std::move(plan);
    options.on_fault = [this](const FaultEvent& e) {
      std::lock_guard lock(faults_mutex_);
      faults_.push_back(e);
    };
    auto proxy = FaultProxy::start(std::move(options));
    ASSERT_TRUE(proxy) << proxy.error().message;
    proxy_ = std::move(*proxy);
    client_ = make_client(proxy_->url());
    api_ = std::make_unique<kc::BlockingClient>(*client_);
  }

  kc::Client* make_client(const std::string& url) {
    kc::ClientConfig config;
    config.server = url;
    kc::ClientOptions options;
    options.qps = -1;
    options.retry.max_retries = 0;
    options.request_timeout = 5s;
    options.connect_timeout = 2s;
    auto client = kc::Client::create(config, options);
    EXPECT_TRUE(client) << client.error().message;
    if (!client) return nullptr;
    clients_.push_back(std::move(*client));
    return clients_.back().get();
  }

  bool exists(const std::string& name) {
    auto r = direct_->get(kc::resources::kConfigMap, kNs, name);
    EXPECT_TRUE(r || r.error().is_not_found()) << r.error().describe();
    return static_cast<bool>(r);
  }

  void create_directly(const std::string& name) {
    auto r = direct_->create(kc::resources::kConfigMap, config_map(name));
    ASSERT_TRUE(r) << r.error().describe();
  }

  std::vector<FaultEvent> faults() {
    std::lock_guard lock(faults_mutex_);
    return faults_;
  }

  kc::WatchOptions watch_options(std::string resource_version = "") {
    kc::WatchOptions o;
    o.allow_bookmarks = false;
    o.resource_version = std::move(resource_version);
    return o;
  }

  std::string current_resource_version() {
    auto list = direct_->list(kc::resources::kConfigMap, kNs);
    EXPECT_TRUE(list) << list.error().describe();
    return list ? list->resource_version : "";
  }

  std::unique_ptr<kube::server::ApiServer> server_;
  std::vector<std::unique_ptr<kc::Client>> clients_;
  kc::Client* direct_client_ = nullptr;
  std::unique_ptr<kc::BlockingClient> direct_;
  std::unique_ptr<FaultProxy> proxy_;
  kc::Client* client_ = nullptr;
  std::unique_ptr<kc::BlockingClient> api_;
  std::mutex faults_mutex_;
  std::vector<FaultEvent> faults_;
};

TEST_F(FaultProxyTest, ForwardsTransparentlyWithKeepAliveAndLargeBodies) {
  start_proxy(R"({"rules": []})");
  const std::string big(1000000, 'x');  // just under the ConfigMap limit
  for (int i = 0; i < 4; ++i) {
    auto created = api_->create(kc::resources::kConfigMap, config_map("big-" + std::to_string(i), big));
    ASSERT_TRUE(created) << created.error().describe();
  }
  auto got = api_->get(kc::resources::kConfigMap, kNs, "big-1");
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_EQ(got->string_at({"data", "key"}).size(), big.size());
  auto list = api_->list(kc::resources::kConfigMap, kNs);
  ASSERT_TRUE(list) << list.error().describe();
  EXPECT_EQ(list->items.size(), 4u);
  auto missing = api_->get(kc::resources::kConfigMap, kNs, "nope");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is_not_found()) << missing.error().describe();
  auto removed = api_->remove(kc::resources::kConfigMap, kNs, "big-0");
  ASSERT_TRUE(removed) << removed.error().describe();
  EXPECT_FALSE(exists("big-0"));

  const auto stats = proxy_->stats();
  EXPECT_EQ(stats.requests, 8u);
  EXPECT_EQ(stats.forwarded, 8u);
  EXPECT_EQ(stats.connections, 1u) << "the client's keep-alive connection is reused through the proxy";
  EXPECT_EQ(stats.faults_total(), 0u);
}

TEST_F(FaultProxyTest, ResetBeforeNeverReachesTheServer) {
  start_proxy(R"({"rules": [{"fault": "reset_before", "match": {"methods": ["POST"], "path": "/configmaps$"},
                              "first": 1}]})");
  auto r = api_->create(kc::resources::kConfigMap, config_map("reset"));
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is_transport()) << r.error().describe();
  EXPECT_FALSE(exists("reset"));
  // Only the first matching request: the retry goes through.
  auto again = api_->create(kc::resources::kConfigMap, config_map("reset"));
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_TRUE(exists("reset"));
  EXPECT_EQ(proxy_->stats().faults_of(FaultKind::reset_before), 1u);
  ASSERT_EQ(faults().size(), 1u);
  EXPECT_EQ(faults()[0].method, "POST");
  EXPECT_EQ(target_path(faults()[0].target), "/api/v1/namespaces/default/configmaps");
}

TEST_F(FaultProxyTest, DropAnswerLosesTheAnswerOfAWriteThatLanded) {
  start_proxy(R"({"rules": [{"fault": "drop_answer", "match": {"methods": ["POST"]}, "first": 1}]})");
  auto r = api_->create(kc::resources::kConfigMap, config_map("dropped"));
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is_transport()) << r.error().describe();
  EXPECT_TRUE(r.error().may_have_been_applied());
  EXPECT_TRUE(exists("dropped"));
  // The write landed: doing it again is refused as a duplicate.
  auto again = api_->create(kc::resources::kConfigMap, config_map("dropped"));
  ASSERT_FALSE(again);
  EXPECT_TRUE(again.error().is_already_exists()) << again.error().describe();
  EXPECT_EQ(proxy_->stats().faults_of(FaultKind::drop_answer), 1u);
}

TEST_F(FaultProxyTest, StatusFaultsAnswerDecodableStatuses) {
  start_proxy(R"({"rules": [
      {"fault": "status", "status": 409, "match": {"path_contains": "/cm-409"}},
      {"fault": "status", "status": 429, "retry_after_s": 2, "match": {"path_contains": "/cm-429"}},
      {"fault": "status", "status": 500, "match": {"path_contains": "/cm-500"}},
      {"fault": "status", "status": 503, "match": {"path_contains": "/cm-503"}},
      {"fault": "status", "status": 504, "match": {"path_contains": "/cm-504"}}]})");
  create_directly("cm-409");
  struct Case {
    std::string name;
    int code;
    std::string reason;
  };
  for (const Case& c : {Case{"cm-409", 409, "Conflict"}, Case{"cm-429", 429, "TooManyRequests"},
                        Case{"cm-500", 500, "InternalError"}, Case{"cm-503", 503, "ServiceUnavailable"},
                        Case{"cm-504", 504, "Timeout"}}) {
    auto r = api_->get(kc::resources::kConfigMap, kNs, c.name);
    ASSERT_FALSE(r) << c.name;
    const kc::ApiError& e = r.error();
    EXPECT_EQ(e.kind, kc::ApiError::Kind::Status) << e.describe();
    EXPECT_EQ(e.http_status, c.code) << e.describe();
    EXPECT_EQ(e.reason, c.reason) << e.describe();
    EXPECT_NE(e.message.find("kueuepp-fault-proxy"), std::string::npos) << e.describe();
  }
  auto conflict = api_->get(kc::resources::kConfigMap, kNs, "cm-409");
  EXPECT_TRUE(conflict.error().is_conflict());
  auto throttled = api_->get(kc::resources::kConfigMap, kNs, "cm-429");
  EXPECT_TRUE(throttled.error().is_too_many_requests());
  EXPECT_EQ(throttled.error().retry_after, std::optional<std::chrono::seconds>(2s));
  auto timeout = api_->get(kc::resources::kConfigMap, kNs, "cm-504");
  EXPECT_TRUE(timeout.error().is_server_timeout());
  // The connection stays usable after an injected answer (it was a proper answer).
  EXPECT_TRUE(api_->get(kc::resources::kConfigMap, kNs, "cm-409").error().is_conflict());
  EXPECT_TRUE(exists("cm-409"));
  EXPECT_EQ(proxy_->stats().faults_of(FaultKind::status), 9u);
  EXPECT_EQ(proxy_->stats().connections, 1u);
}

TEST_F(FaultProxyTest, DelayHoldsTheRequest) {
  start_proxy(R"({"rules": [{"fault": "delay", "delay_ms": 300, "match": {"methods": ["GET"]}}]})");
  create_directly("slow");
  const auto start = Clock::now();
  auto r = api_->get(kc::resources::kConfigMap, kNs, "slow");
  const auto took = Clock::now() - start;
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 3s);
  EXPECT_EQ(proxy_->stats().faults_of(FaultKind::delay), 1u);
}

TEST_F(FaultProxyTest, CutWatchAfterNEvents) {
  for (int i = 0; i < 5; ++i) create_directly("cut-" + std::to_string(i));
  start_proxy(R"({"rules": [{"fault": "cut_watch_after", "events": 3}]})");
  auto log = std::make_shared<WatchLog>();
  auto handle = client_->watch(kc::resources::kConfigMap, kNs, watch_options(), log->handlers());
  ASSERT_TRUE(wait_until([&] { return log->ended(); })) << "the watch was not cut";
  EXPECT_EQ(log->size(), 3u);
  ASSERT_TRUE(log->end.has_value());
  EXPECT_TRUE(*log->end) << "a cut watch ends cleanly: " << log->end->error().describe();
  EXPECT_EQ(proxy_->stats().faults_of(FaultKind::cut_watch_after), 1u);
  // Plain requests still pass on the same proxy.
  EXPECT_TRUE(exists("cut-0"));
  EXPECT_TRUE(api_->get(kc::resources::kConfigMap, kNs, "cut-4"));
}

TEST_F(FaultProxyTest, WatchGoneInStreamAfterNEvents) {
  for (int i = 0; i < 4; ++i) create_directly("gone-" + std::to_string(i));
  start_proxy(R"({"rules": [{"fault": "watch_gone", "events": 2}]})");
  auto log = std::make_shared<WatchLog>();
  auto handle = client_->watch(kc::resources::kConfigMap, kNs, watch_options(), log->handlers());
  ASSERT_TRUE(wait_until([&] { return log->ended(); })) << "the watch did not end";
  std::lock_guard lock(log->mutex);
  ASSERT_EQ(log->events.size(), 3u);
  EXPECT_EQ(log->events[0].type, kc::WatchEventType::Added);
  EXPECT_EQ(log->events[1].type, kc::WatchEventType::Added);
  EXPECT_EQ(log->events[2].type, kc::WatchEventType::Error);
  EXPECT_TRUE(log->events[2].status_error().is_gone()) << log->events[2].status_error().describe();
  EXPECT_EQ(proxy_->stats().faults_of(FaultKind::watch_gone), 1u);
}

TEST_F(FaultProxyTest, WatchGoneAnswersTheWatchRequest) {
  create_directly("gone-answer");
  start_proxy(R"({"rules": [{"fault": "watch_gone", "mode": "answer", "first": 1}]})");
  auto log = std::make_shared<WatchLog>();
  auto handle = client_->watch(kc::resources::kConfigMap, kNs, watch_options(), log->handlers());
  ASSERT_TRUE(wait_until([&] { return log->ended(); }));
  EXPECT_EQ(log->size(), 0u);
  ASSERT_FALSE(*log->end);
  EXPECT_TRUE(log->end->error().is_gone()) << log->end->error().describe();
  EXPECT_EQ(log->end->error().http_status, 410);
  // Only the first watch: the next one lists the object.
  auto second = std::make_shared<WatchLog>();
  auto handle2 = client_->watch(kc::resources::kConfigMap, kNs, watch_options(), second->handlers());
  ASSERT_TRUE(wait_until([&] { return second->size() == 1; }));
  handle2.cancel();
}

TEST_F(FaultProxyTest, LagWatchHoldsEventsInOrder) {
  start_proxy(R"({"rules": [{"fault": "lag_watch", "delay_ms": 250}]})");
  const std::string from = current_resource_version();
  auto log = std::make_shared<WatchLog>();
  auto handle = client_->watch(kc::resources::kConfigMap, kNs, watch_options(from), log->handlers());
  // The watch is established once the proxy logged the lag (it does so on the answer's head).
  ASSERT_TRUE(wait_until([&] { return proxy_->stats().faults_of(FaultKind::lag_watch) == 1; }));
  // Taken before each create: the proxy cannot read the event earlier, so it must arrive
  // at least the lag after this (the create's own answer may come later than the event).
  std::vector<Clock::time_point> created;
  std::vector<std::string> names;
  for (int i = 0; i < 6; ++i) {
    names.push_back("lag-" + std::to_string(i));
    created.push_back(Clock::now());
    create_directly(names.back());
  }
  ASSERT_TRUE(wait_until([&] { return log->size() == names.size(); }));
  EXPECT_EQ(log->names(), names) << "events keep their order";
  {
    std::lock_guard lock(log->mutex);
    for (std::size_t i = 0; i < names.size(); ++i) {
      EXPECT_GE(log->arrivals[i] - created[i], 250ms) << names[i] << " was not held";
    }
  }
  handle.cancel();
  EXPECT_TRUE(wait_until([&] { return proxy_->stats().open_connections == 0; })) << "a lagging watch notices its client";
}

TEST_F(FaultProxyTest, BlackoutRefusesThenRecovers) {
  create_directly("steady");
  start_proxy(R"({"rules": [{"fault": "blackout", "from_s": 0.4, "for_s": 0.6}]})");
  ASSERT_TRUE(api_->get(kc::resources::kConfigMap, kNs, "steady")) << "before the outage";
  ASSERT_LT(proxy_->elapsed(), 400ms) << "the machine is too slow for this test's window";
  auto log = std::make_shared<WatchLog>();
  auto handle = client_->watch(kc::resources::kConfigMap, kNs, watch_options(), log->handlers());
  ASSERT_TRUE(wait_until([&] { return log->size() == 1; }));
  // The outage closes the open watch ...
  ASSERT_TRUE(wait_until([&] { return log->ended(); }));
  EXPECT_GE(proxy_->elapsed(), 400ms);
  EXPECT_FALSE(*log->end);
  // ... and refuses every request while it lasts ...
  if (proxy_->elapsed() < 900ms) {
    auto during = api_->get(kc::resources::kConfigMap, kNs, "steady");
    EXPECT_FALSE(during);
    if (!during) {
      EXPECT_TRUE(during.error().is_transport()) << during.error().describe();
    }
  }
  // ... then the server is reachable again.
  ASSERT_TRUE(wait_until([&] { return proxy_->elapsed() >= 1000ms; }));
  auto after = api_->get(kc::resources::kConfigMap, kNs, "steady");
  EXPECT_TRUE(after) << after.error().describe();
  EXPECT_GE(proxy_->stats().faults_of(FaultKind::blackout), 1u);
}

TEST_F(FaultProxyTest, TheSameSeedReplaysTheSameFaults) {
  create_directly("replay");
  // Two rules draw on the same requests: each keeps its own seeded sequence.
  auto plan = parse_fault_plan(R"({"rules": [
      {"fault": "status", "status": 503, "probability": 0.4, "match": {"methods": ["GET"]}},
      {"fault": "status", "status": 500, "probability": 0.3, "match": {"methods": ["GET"]}}]})");
  ASSERT_TRUE(plan);
  auto run = [&](std::uint64_t seed) {
    if (proxy_) proxy_->stop();
    {
      std::lock_guard lock(faults_mutex_);
      faults_.clear();
    }
    plan->seed = seed;
    start_proxy(*plan);
    std::vector<std::string> outcomes;
    for (int i = 0; i < 30; ++i) {
      auto r = api_->get(kc::resources::kConfigMap, kNs, "replay");
      outcomes.push_back(std::to_string(i) + ":" + (r ? "200" : std::to_string(r.error().http_status)));
    }
    return std::make_pair(outcomes, faults());
  };
  const auto [first, first_faults] = run(42);
  const auto [second, second_faults] = run(42);
  const auto [other, other_faults] = run(43);
  EXPECT_EQ(first, second);
  EXPECT_NE(first, other);
  ASSERT_EQ(first_faults.size(), second_faults.size());
  for (std::size_t i = 0; i < first_faults.size(); ++i) {
    EXPECT_EQ(first_faults[i].rule, second_faults[i].rule);
    EXPECT_EQ(first_faults[i].detail, second_faults[i].detail);
  }
  std::size_t failed = 0;
  for (const auto& o : first) failed += o.ends_with(":200") ? 0 : 1;
  EXPECT_EQ(failed, first_faults.size());
  EXPECT_GT(failed, 5u);
  EXPECT_LT(failed, 28u);
}

TEST_F(FaultProxyTest, AMalformedPlanIsRefusedWithAMessage) {
  FaultProxyOptions options;
  options.upstream_port = server_->port();
  FaultRule rule;
  rule.kind = FaultKind::drop_answer;
  rule.match.path_regex = "/workloads/(";
  options.plan.rules.push_back(rule);
  auto proxy = FaultProxy::start(options);
  ASSERT_FALSE(proxy);
  EXPECT_NE(proxy.error().message.find("rule 0"), std::string::npos) << proxy.error().message;
  EXPECT_NE(proxy.error().message.find("regex"), std::string::npos) << proxy.error().message;

  auto parsed = parse_fault_plan(R"({"seed": 1, "rules": [{"fault": "drop_answer",)");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("not valid JSON"), std::string::npos) << parsed.error().message;

  FaultProxyOptions no_upstream;
  auto refused = FaultProxy::start(no_upstream);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("upstream"), std::string::npos);
}

TEST_F(FaultProxyTest, StopIsPromptWithOpenWatchesAndHeldRequests) {
  start_proxy(R"({"rules": [{"fault": "delay", "delay_ms": 60000, "match": {"path_contains": "/held"}}]})");
  auto log = std::make_shared<WatchLog>();
  auto handle = client_->watch(kc::resources::kConfigMap, kNs, watch_options(), log->handlers());
  std::atomic<bool> held_done{false};
  client_->get(kc::resources::kConfigMap, kNs, "held", [&](kc::Result<kc::Object>) { held_done = true; });
  ASSERT_TRUE(wait_until([&] { return proxy_->stats().faults_of(FaultKind::delay) == 1; }));
  const auto start = Clock::now();
  proxy_->stop();
  EXPECT_LT(Clock::now() - start, 1s);
  EXPECT_TRUE(wait_until([&] { return log->ended() && held_done.load(); }));
}

TEST_F(FaultProxyTest, ClientThatLeavesAWatchEndsTheUpstreamWatch) {
  start_proxy(R"({"rules": []})");
  auto log = std::make_shared<WatchLog>();
  auto handle = client_->watch(kc::resources::kConfigMap, kNs, watch_options(current_resource_version()),
                               log->handlers());
  ASSERT_TRUE(wait_until([&] { return proxy_->stats().forwarded == 1; }));
  EXPECT_EQ(proxy_->stats().open_connections, 1u);
  handle.cancel();
  ASSERT_TRUE(wait_until([&] { return log->ended(); }));
  // The proxy noticed the client leaving while no event came: it closed the connection
  // and with it the upstream watch.
  EXPECT_TRUE(wait_until([&] { return proxy_->stats().open_connections == 0; }));
}

TEST_F(FaultProxyTest, ConcurrentClientsAndAWatchSeeEverything) {
  start_proxy(R"({"rules": [{"fault": "delay", "delay_ms": 1, "every": 7}]})");
  auto log = std::make_shared<WatchLog>();
  auto handle = client_->watch(kc::resources::kConfigMap, kNs, watch_options(current_resource_version()),
                               log->handlers());
  constexpr int kClients = 4;
  constexpr int kEach = 40;
  std::atomic<int> done{0};
  std::atomic<int> failed{0};
  std::vector<kc::Client*> writers;
  for (int c = 0; c < kClients; ++c) writers.push_back(make_client(proxy_->url()));
  for (int c = 0; c < kClients; ++c) {
    for (int i = 0; i < kEach; ++i) {
      writers[c]->create(kc::resources::kConfigMap, config_map("c" + std::to_string(c) + "-" + std::to_string(i)),
                         [&](kc::Result<kc::Object> r) {
                           if (!r) ++failed;
                           ++done;
                         });
    }
  }
  ASSERT_TRUE(wait_until([&] { return done == kClients * kEach; }, 8s));
  EXPECT_EQ(failed, 0);
  ASSERT_TRUE(wait_until([&] { return log->size() == kClients * kEach; }, 8s)) << log->size();
  std::lock_guard lock(log->mutex);
  for (std::size_t i = 1; i < log->events.size(); ++i) {
    EXPECT_LT(std::stoll(std::string(log->events[i - 1].resource_version())),
              std::stoll(std::string(log->events[i].resource_version())));
  }
  EXPECT_EQ(proxy_->stats().faults_of(FaultKind::delay), (kClients * kEach + 1) / 7);
}

class FaultProxyKueueTest : public FaultProxyTest {
 protected:
  std::vector<std::string> crd_paths() const override {
    const char* env = std::getenv("KUEUEPP_SOURCE_DIR");
    return {std::string(env != nullptr && *env != '\0' ? env : KUEUEPP_SOURCE_DIR) + "/deploy/crds"};
  }
};

TEST_F(FaultProxyKueueTest, ADroppedWorkloadStatusAnswerStillLanded) {
  start_proxy(R"({"seed": 7, "rules": [{"match": {"methods": ["PATCH"],
      "path": "/apis/kueue.x-k8s.io/v1beta2/namespaces/.*/workloads/.*/status"}, "fault": "drop_answer", "first": 1}]})");
  auto workload = json::parse_yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: wl, namespace: default}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]}}
)");
  ASSERT_TRUE(workload) << workload.error().message;
  auto created = direct_->create(kc::resources::kWorkload, kc::Object(std::move(*workload)));
  ASSERT_TRUE(created) << created.error().describe();

  auto condition = [](const std::string& reason) {
    auto patch = json::parse(R"({"status": {"conditions": [{"type": "QuotaReserved", "status": "False",
        "reason": ")" + reason + R"(", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})");
    EXPECT_TRUE(patch);
    return patch ? std::move(*patch) : json::value();
  };
  kc::PatchOptions status;
  status.status_subresource = true;
  auto lost = api_->patch(kc::resources::kWorkload, kNs, "wl", kc::PatchType::Merge, condition("Pending"), status);
  ASSERT_FALSE(lost);
  EXPECT_TRUE(lost.error().is_transport()) << lost.error().describe();
  auto seen = direct_->get(kc::resources::kWorkload, kNs, "wl");
  ASSERT_TRUE(seen) << seen.error().describe();
  auto cond = seen->condition("QuotaReserved");
  ASSERT_TRUE(cond) << "the status patch landed although its answer was lost";
  EXPECT_EQ(cond->reason, "Pending");
  // Only the first: the next status patch and a patch of the object itself are answered.
  EXPECT_TRUE(api_->patch(kc::resources::kWorkload, kNs, "wl", kc::PatchType::Merge, condition("Waiting"), status));
  auto labels = json::parse(R"({"metadata": {"labels": {"x": "y"}}})");
  EXPECT_TRUE(api_->patch(kc::resources::kWorkload, kNs, "wl", kc::PatchType::Merge, *labels));
  EXPECT_EQ(proxy_->stats().faults_of(FaultKind::drop_answer), 1u);
}

// -- bad peers ---------------------------------------------------------------------------------

/// A listening socket on 127.0.0.1:0 (closed by the destructor).
struct RawListener {
  int fd = -1;
  std::uint16_t port = 0;
  RawListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(::listen(fd, 4), 0);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~RawListener() {
    if (fd >= 0) ::close(fd);
  }
};

int raw_connect(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

/// Reads until the peer closes (or 2 s pass); true when it closed.
bool peer_closes(int fd) {
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;
  }
}

TEST_F(FaultProxyTest, GarbageFromAClientClosesOnlyThatConnection) {
  start_proxy(R"({"rules": [{"fault": "reset_before", "match": {"path": "/never.*matches"}}]})");
  create_directly("fine");
  for (const std::string& garbage :
       {std::string("NOT HTTP AT ALL\r\n\r\n"), std::string("\0\xff\xfe garbage\r\n\r\n", 15),
        "GET /" + std::string(100000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n",
        std::string("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nContent-Length: zz\r\n\r\n"),
        std::string("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")}) {
    const int fd = raw_connect(proxy_->port());
    ASSERT_EQ(::send(fd, garbage.data(), garbage.size(), MSG_NOSIGNAL), static_cast<ssize_t>(garbage.size()));
    EXPECT_TRUE(peer_closes(fd)) << garbage.substr(0, 40);
    ::close(fd);
  }
  auto r = api_->get(kc::resources::kConfigMap, kNs, "fine");
  EXPECT_TRUE(r) << r.error().describe();
  EXPECT_EQ(proxy_->stats().faults_total(), 0u);
}

TEST_F(FaultProxyTest, AnUnreachableUpstreamResetsTheClient) {
  std::uint16_t closed_port = 0;
  {
    RawListener gone;  // bound, then closed: nothing listens there any more
    closed_port = gone.port;
  }
  FaultProxyOptions options;
  options.upstream_port = closed_port;
  auto proxy = FaultProxy::start(options);
  ASSERT_TRUE(proxy) << proxy.error().message;
  proxy_ = std::move(*proxy);
  kc::BlockingClient api(*make_client(proxy_->url()));
  auto r = api.get(kc::resources::kConfigMap, kNs, "x");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is_transport()) << r.error().describe();
  EXPECT_EQ(proxy_->stats().upstream_errors, 1u);
}

TEST_F(FaultProxyTest, AnUpstreamAnsweringGarbageResetsTheClient) {
  RawListener upstream;
  std::thread server([&] {
    for (const std::string& answer :
         {std::string("SMTP ready\r\n\r\n"),
          std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\nzz")}) {
      const int fd = ::accept(upstream.fd, nullptr, nullptr);
      if (fd < 0) return;
      char buf[4096];
      (void)::recv(fd, buf, sizeof buf, 0);
      (void)::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(fd);
    }
  });
  FaultProxyOptions options;
  options.upstream_port = upstream.port;
  auto proxy = FaultProxy::start(options);
  ASSERT_TRUE(proxy) << proxy.error().message;
  proxy_ = std::move(*proxy);
  kc::BlockingClient api(*make_client(proxy_->url()));
  for (int i = 0; i < 2; ++i) {
    auto r = api.get(kc::resources::kConfigMap, kNs, "x");
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is_transport() || r.error().kind == kc::ApiError::Kind::Decode) << r.error().describe();
  }
  server.join();
  EXPECT_EQ(proxy_->stats().upstream_errors, 2u);
}

// -- the executable --------------------------------------------------------------------------

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(FaultProxyTest, ExecutableWritesItsPortAndPrintsStatsOnSigterm) {
  const fs::path dir = fs::temp_directory_path() / ("fault-proxy-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path plan = dir / "plan.json";
  const fs::path port_file = dir / "port";
  const fs::path log_file = dir / "faults.log";
  const fs::path out_file = dir / "stdout";
  std::ofstream(plan) << R"({"seed": 3, "rules": [{"fault": "status", "status": 503, "first": 1}]})";

  const std::string upstream = "127.0.0.1:" + std::to_string(server_->port());
  std::vector<std::string> args = {KUEUEPP_FAULT_PROXY_BIN, "--listen",    "127.0.0.1:0",     "--upstream",
                                   upstream,                "--plan",      plan.string(),     "--log",
                                   log_file.string(),       "--port-file", port_file.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0) << argv[0];
  posix_spawn_file_actions_destroy(&actions);

  const bool listening = wait_until([&] { return fs::exists(port_file); });
  if (listening) {
    const int port = std::stoi(slurp(port_file));
    auto* client = make_client("http://127.0.0.1:" + std::to_string(port));
    kc::BlockingClient api(*client);
    auto first = api.list(kc::resources::kConfigMap, kNs);
    ASSERT_FALSE(first);
    EXPECT_EQ(first.error().http_status, 503);
    EXPECT_TRUE(api.list(kc::resources::kConfigMap, kNs));
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(listening) << "no port file";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto stats = json::parse(slurp(out_file));
  ASSERT_TRUE(stats) << slurp(out_file);
  EXPECT_EQ(json::find(*stats, "requests")->to_number<int>(), 2);
  EXPECT_EQ(json::find_path(*stats, {"faults", "status"})->to_number<int>(), 1);
  const std::string log = slurp(log_file);
  EXPECT_NE(log.find("fault t="), std::string::npos) << log;
  EXPECT_NE(log.find("kind=status method=GET target=/api/v1/namespaces/default/configmaps"), std::string::npos) << log;
  EXPECT_NE(log.find("rule 0: status"), std::string::npos) << log;

  // A bad plan: exit 2 with a message.
  std::ofstream(plan) << R"({"rules": [{"fault": "meltdown"}]})";
  const std::string command = std::string(KUEUEPP_FAULT_PROXY_BIN) + " --upstream " + upstream + " --plan " +
                              plan.string() + " 2>" + (dir / "stderr").string();
  const int rc = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
  EXPECT_NE(slurp(dir / "stderr").find("unknown fault \"meltdown\""), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kueuepp::faults
