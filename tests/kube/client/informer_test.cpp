// The informer over real HTTP: paged list, watch from the list version, bookmarks,
// reconnects, and re-lists on 410 in both forms.

#include "kube/client/informer.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "tests/kube/client/client_fixture.hpp"

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;
using namespace testing;
using resources::kWorkload;

// Answers requests from a script, in order; requests beyond it are held open.
class Script {
 public:
  explicit Script(std::vector<TestResponse> steps) : steps_(std::move(steps)) {}
  TestResponse next() {
    std::lock_guard lock(mutex_);
    if (index_ < steps_.size()) return steps_[index_++];
    TestResponse held;
    held.hold_open = true;
    return held;
  }

 private:
  std::mutex mutex_;
  std::vector<TestResponse> steps_;
  std::size_t index_ = 0;
};

TestResponse stream(std::vector<std::string> lines, bool hold_open = false) {
  TestResponse r;
  for (auto& l : lines) r.chunks.push_back(l + "\n");
  r.hold_open = hold_open;
  return r;
}

struct Recorder {
  std::mutex mutex;
  std::vector<InformerEvent> events;
  std::vector<ApiError> errors;
  void on_event(InformerEvent e) {
    std::lock_guard lock(mutex);
    events.push_back(std::move(e));
  }
  void on_error(const ApiError& e) {
    std::lock_guard lock(mutex);
    errors.push_back(e);
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return events.size();
  }
};

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return condition();
}

InformerOptions fast_informer() {
  InformerOptions options;
  options.namespace_name = "ns";
  options.label_selector = "team=a";
  options.page_size = 2;
  options.backoff = {1ms, 5ms, 2.0, 0.0};
  options.min_watch_timeout = 60s;
  return options;
}

std::string wl(const std::string& name, const std::string& rv) {
  return R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":")" + name +
         R"(","namespace":"ns","resourceVersion":")" + rv + R"("}})";
}

TEST(Informer, ListsWatchesResumesFromBookmarksAndRelistsOnInStreamGone) {
  Script script({
      TestResponse::json(200, R"({"metadata":{"resourceVersion":"10","continue":"c"},"items":[)" + wl("a", "3") + "," + wl("b", "4") + "]}"),
      TestResponse::json(200, R"({"metadata":{"resourceVersion":"10"},"items":[)" + wl("c", "5") + "]}"),
      stream({R"({"type":"ADDED","object":)" + wl("d", "11") + "}",
              R"({"type":"BOOKMARK","object":{"kind":"Workload","metadata":{"resourceVersion":"15"}}})"}),
      stream({R"json({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 15 (19)"}})json"}),
      TestResponse::json(200, R"({"metadata":{"resourceVersion":"20"},"items":[)" + wl("a", "18") + "]}"),
      stream({R"({"type":"DELETED","object":)" + wl("a", "21") + "}"}, true),
  });
  auto server = TestServer::start([&](const TestRequest&) { return script.next(); });
  auto client = make_client(server->url());
  Recorder recorder;
  auto informer = Informer::start(
      *client, kWorkload, fast_informer(), [&](InformerEvent e) { recorder.on_event(std::move(e)); },
      [&](const ApiError& e) { recorder.on_error(e); });
  ASSERT_TRUE(wait_until([&] { return recorder.count() >= 4; }));
  informer->stop();

  std::lock_guard lock(recorder.mutex);
  ASSERT_EQ(recorder.events.size(), 4u);
  EXPECT_EQ(recorder.events[0].type, InformerEvent::Type::Relisted);
  ASSERT_EQ(recorder.events[0].items.size(), 3u);
  EXPECT_EQ(recorder.events[0].items[2].name(), "c");
  EXPECT_EQ(recorder.events[0].resource_version, "10");
  EXPECT_EQ(recorder.events[1].type, InformerEvent::Type::Added);
  EXPECT_EQ(recorder.events[1].object.name(), "d");
  EXPECT_EQ(recorder.events[2].type, InformerEvent::Type::Relisted);  // after the 410
  ASSERT_EQ(recorder.events[2].items.size(), 1u);
  EXPECT_EQ(recorder.events[2].resource_version, "20");
  EXPECT_EQ(recorder.events[3].type, InformerEvent::Type::Deleted);
  ASSERT_EQ(recorder.errors.size(), 1u);
  EXPECT_TRUE(recorder.errors[0].is_gone());
  EXPECT_EQ(informer->relists(), 1);
  EXPECT_EQ(informer->resource_version(), "21");

  const auto r = server->requests();
  ASSERT_GE(r.size(), 6u);
  const std::string base = "/apis/kueue.x-k8s.io/v1beta2/namespaces/ns/workloads?";
  EXPECT_EQ(r[0].target, base + "labelSelector=team%3Da&limit=2");
  EXPECT_EQ(r[1].target, base + "labelSelector=team%3Da&limit=2&continue=c");
  EXPECT_EQ(r[2].target, base + "watch=1&resourceVersion=10&allowWatchBookmarks=true&labelSelector=team%3Da&timeoutSeconds=60");
  EXPECT_EQ(r[3].target, base + "watch=1&resourceVersion=15&allowWatchBookmarks=true&labelSelector=team%3Da&timeoutSeconds=60");
  EXPECT_EQ(r[4].target, base + "labelSelector=team%3Da&limit=2");  // a fresh list, not a stale watch
  EXPECT_EQ(r[5].target, base + "watch=1&resourceVersion=20&allowWatchBookmarks=true&labelSelector=team%3Da&timeoutSeconds=60");
}

TEST(Informer, RelistsOnAGoneStatusAndResumesAfterADroppedConnection) {
  Script script({
      TestResponse::json(200, R"({"metadata":{"resourceVersion":"5"},"items":[]})"),
      TestResponse::json(410, R"({"kind":"Status","reason":"Gone","code":410})"),
      TestResponse::json(200, R"({"metadata":{"resourceVersion":"7"},"items":[]})"),
      stream({R"({"type":"ADDED","object":)" + wl("x", "8") + "}"}, true),
  });
  auto server = TestServer::start([&](const TestRequest&) { return script.next(); });
  auto client = make_client(server->url());
  Recorder recorder;
  auto informer = Informer::start(*client, kWorkload, fast_informer(),
                                  [&](InformerEvent e) { recorder.on_event(std::move(e)); });
  ASSERT_TRUE(wait_until([&] { return recorder.count() >= 3; }));
  server->drop_connections();  // the watch dies mid-stream
  ASSERT_TRUE(wait_until([&] { return server->requests().size() >= 5; }));
  informer->stop();

  const auto r = server->requests();
  EXPECT_NE(r[1].target.find("watch=1&resourceVersion=5"), std::string::npos);
  EXPECT_EQ(r[2].target.find("watch=1"), std::string::npos);  // re-list after the 410
  EXPECT_NE(r[3].target.find("watch=1&resourceVersion=7"), std::string::npos);
  EXPECT_NE(r[4].target.find("watch=1&resourceVersion=8"), std::string::npos);  // resumed, no re-list
  std::lock_guard lock(recorder.mutex);
  EXPECT_EQ(recorder.events[0].type, InformerEvent::Type::Relisted);
  EXPECT_EQ(recorder.events[1].type, InformerEvent::Type::Relisted);
  EXPECT_EQ(recorder.events[2].type, InformerEvent::Type::Added);
}

TEST(Informer, RetriesAFailingListWithBackoffAndStopsCleanly) {
  std::atomic<int> lists{0};
  auto server = TestServer::start([&](const TestRequest& r) {
    if (r.target.find("watch=1") != std::string::npos) {
      TestResponse held;
      held.hold_open = true;
      return held;
    }
    if (lists++ < 3) return TestResponse::json(403, R"({"kind":"Status","reason":"Forbidden","code":403})");
    return TestResponse::json(200, R"({"metadata":{"resourceVersion":"1"},"items":[]})");
  });
  auto client = make_client(server->url());
  Recorder recorder;
  auto informer = Informer::start(
      *client, kWorkload, fast_informer(), [&](InformerEvent e) { recorder.on_event(std::move(e)); },
      [&](const ApiError& e) { recorder.on_error(e); });
  ASSERT_TRUE(wait_until([&] { return recorder.count() >= 1; }));
  EXPECT_EQ(lists.load(), 4);
  {
    std::lock_guard lock(recorder.mutex);
    EXPECT_EQ(recorder.errors.size(), 3u);
    EXPECT_TRUE(recorder.errors[0].is_forbidden());
  }
  ASSERT_TRUE(wait_until([&] { return server->requests().size() >= 5; }));  // watching
  informer->stop();
  const std::size_t after_stop = server->requests().size();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(server->requests().size(), after_stop);
  client->shutdown();  // prompt even with the informer's watch having been open
}

}  // namespace
}  // namespace kueuepp::kube::client
