// Watches and raw streams over real chunked HTTP responses.

#include <gtest/gtest.h>

#include <mutex>

#include "tests/kube/client/client_fixture.hpp"

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;
using namespace testing;
using resources::kJob;

struct Collected {
  std::mutex mutex;
  std::vector<WatchEvent> events;
  void add(WatchEvent e) {
    std::lock_guard lock(mutex);
    events.push_back(std::move(e));
  }
};

TEST(WatchHttp, DeliversTypedEventsWhateverTheChunkBoundaries) {
  const std::string e1 = R"({"type":"ADDED","object":{"kind":"Job","metadata":{"name":"a","resourceVersion":"2"}}})" "\n";
  const std::string e2 = R"({"type":"MODIFIED","object":{"kind":"Job","metadata":{"name":"a","resourceVersion":"3"}}})" "\n";
  const std::string e3 = R"({"type":"BOOKMARK","object":{"kind":"Job","metadata":{"resourceVersion":"4"}}})" "\n";
  const std::string e4 = R"({"type":"DELETED","object":{"kind":"Job","metadata":{"name":"a","resourceVersion":"5"}}})" "\n";
  auto server = TestServer::start([&](const TestRequest&) {
    TestResponse r;
    // e1 split over three chunks; e2+e3 in one chunk; e4 split at its newline.
    r.chunks = {e1.substr(0, 10), e1.substr(10, 30), e1.substr(40) + e2 + e3,
                e4.substr(0, e4.size() - 1), "\n"};
    r.chunk_delay = 5ms;
    return r;
  });
  auto client = make_client(server->url());
  Collected collected;
  Waiter<Result<void>> end;
  WatchOptions options;
  options.resource_version = "1";
  options.timeout_seconds = 30;
  WatchHandlers handlers;
  handlers.on_event = [&](WatchEvent e) { collected.add(std::move(e)); };
  handlers.on_end = end.callback();
  client->watch(kJob, "ns", options, std::move(handlers));
  auto result = end.get();
  ASSERT_TRUE(result) << result.error().describe();
  ASSERT_EQ(collected.events.size(), 4u);
  EXPECT_EQ(collected.events[0].type, WatchEventType::Added);
  EXPECT_EQ(collected.events[1].type, WatchEventType::Modified);
  EXPECT_EQ(collected.events[2].type, WatchEventType::Bookmark);
  EXPECT_EQ(collected.events[2].resource_version(), "4");
  EXPECT_EQ(collected.events[3].type, WatchEventType::Deleted);
  EXPECT_EQ(server->requests().at(0).target,
            "/apis/batch/v1/namespaces/ns/jobs?watch=1&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=30");
  EXPECT_EQ(client->stats().requests_of(Verb::Watch), 1u);
}

TEST(WatchHttp, EventsThatArriveTogetherEndOneBatch) {
  auto event = [](std::string_view type, std::string_view rv) {
    return R"({"type":")" + std::string(type) + R"(","object":{"kind":"Job","metadata":{"name":"a","resourceVersion":")" +
           std::string(rv) + "\"}}}\n";
  };
  const std::string e4 = event("MODIFIED", "4");
  auto server = TestServer::start([&](const TestRequest&) {
    TestResponse r;
    // Three writes of two HTTP chunks each: e2+e3; e4 split in two; e5+e6.
    r.chunks = {event("ADDED", "2"), event("MODIFIED", "3"), e4.substr(0, 20), e4.substr(20),
                event("MODIFIED", "5"), event("BOOKMARK", "6")};
    r.chunks_per_write = 2;
    r.chunk_delay = 20ms;
    return r;
  });
  auto client = make_client(server->url());
  std::mutex mutex;
  std::string log;
  auto note = [&](std::string_view what) {
    std::lock_guard lock(mutex);
    log += what;
  };
  Waiter<Result<void>> end;
  WatchHandlers handlers;
  handlers.on_event = [&](WatchEvent e) { note(std::string(e.resource_version()) + " "); };
  handlers.on_batch_end = [&] { note("| "); };
  handlers.on_end = [&, done = end.callback()](Result<void> r) {
    note("end");
    done(std::move(r));
  };
  client->watch(kJob, "ns", {}, std::move(handlers));
  auto result = end.get();
  ASSERT_TRUE(result) << result.error().describe();
  std::lock_guard lock(mutex);
  // One batch per write however many HTTP chunks it held; a partial line ends none.
  EXPECT_EQ(log, "2 3 | 4 | 5 6 | end");
}

TEST(WatchHttp, AGoneStatusEndsTheWatchWithIsGone) {
  auto server = TestServer::start([](const TestRequest&) {
    return TestResponse::json(410, R"({"kind":"Status","status":"Failure","reason":"Expired","code":410,"message":"too old resource version"})");
  });
  auto client = make_client(server->url());
  Waiter<Result<void>> end;
  WatchHandlers handlers;
  handlers.on_end = end.callback();
  client->watch(kJob, "ns", {}, std::move(handlers));
  auto result = end.get();
  ASSERT_FALSE(result);
  EXPECT_TRUE(result.error().is_gone());
  EXPECT_EQ(result.error().message, "too old resource version");
}

TEST(WatchHttp, InStreamErrorEventsAreDelivered) {
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse r;
    r.chunks = {R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})" "\n"};
    return r;
  });
  auto client = make_client(server->url());
  Collected collected;
  Waiter<Result<void>> end;
  WatchHandlers handlers;
  handlers.on_event = [&](WatchEvent e) { collected.add(std::move(e)); };
  handlers.on_end = end.callback();
  client->watch(kJob, "ns", {}, std::move(handlers));
  ASSERT_TRUE(end.get());
  ASSERT_EQ(collected.events.size(), 1u);
  EXPECT_EQ(collected.events[0].type, WatchEventType::Error);
  EXPECT_TRUE(collected.events[0].status_error().is_gone());
}

TEST(WatchHttp, AnUndecodableLineEndsTheWatchWithADecodeError) {
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse r;
    r.chunks = {R"({"type":"ADDED","object":{}})" "\n", "{garbage\n",
                R"({"type":"ADDED","object":{}})" "\n"};
    r.hold_open = true;
    return r;
  });
  auto client = make_client(server->url());
  Collected collected;
  Waiter<Result<void>> end;
  WatchHandlers handlers;
  handlers.on_event = [&](WatchEvent e) { collected.add(std::move(e)); };
  handlers.on_end = end.callback();
  client->watch(kJob, "ns", {}, std::move(handlers));
  auto result = end.get();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ApiError::Kind::Decode);
  EXPECT_EQ(collected.events.size(), 1u);  // nothing after the bad line
}

TEST(WatchHttp, ADroppedConnectionEndsTheWatchWithATransportError) {
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse r;
    r.chunks = {R"({"type":"ADDED","object":{}})" "\n"};
    r.hold_open = true;
    return r;
  });
  auto client = make_client(server->url());
  Collected collected;
  Waiter<Result<void>> end;
  WatchHandlers handlers;
  handlers.on_event = [&](WatchEvent e) { collected.add(std::move(e)); };
  handlers.on_end = end.callback();
  client->watch(kJob, "ns", {}, std::move(handlers));
  std::this_thread::sleep_for(200ms);
  server->drop_connections();
  auto result = end.get();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ApiError::Kind::Transport);
  EXPECT_EQ(collected.events.size(), 1u);
}

TEST(RawStream, DeliversChunksAsTheyArriveAndCancels) {
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse r;
    r.headers = {{"Content-Type", "text/plain"}};
    r.chunks = {"first ", "second"};
    r.hold_open = true;  // the body never ends by itself
    return r;
  });
  auto client = make_client(server->url());
  Waiter<int> head;
  Waiter<std::string> two_chunks;
  Waiter<Result<void>> end;
  auto received = std::make_shared<std::string>();
  auto on_two = two_chunks.callback();
  StreamHandlers handlers;
  handlers.on_head = [cb = head.callback()](int status, const Headers&) { cb(status); };
  handlers.on_chunk = [received, on_two](std::string_view chunk) {
    received->append(chunk);
    if (*received == "first second") on_two(*received);
  };
  handlers.on_end = end.callback();
  HttpRequest request;
  request.target = "/stream";
  CancelHandle handle = client->raw_stream(request, std::move(handlers));
  EXPECT_EQ(head.get(), 200);
  EXPECT_EQ(two_chunks.get(), "first second");  // before the stream ended
  handle.cancel();
  auto result = end.get();
  ASSERT_FALSE(result);
  EXPECT_TRUE(result.error().is_cancelled());
  handle.cancel();  // idempotent
}

TEST(RawStream, BlockingCollectsTheWholeStreamAndTheConnectionIsReused) {
  auto server = TestServer::start([](const TestRequest&) {
    TestResponse r;
    r.chunks = {"a", "bc", "def"};
    return r;
  });
  auto client = make_client(server->url());
  BlockingClient blocking(*client);
  HttpRequest request;
  request.target = "/s";
  for (int i = 0; i < 2; ++i) {
    auto collected = blocking.raw_stream(request);
    ASSERT_TRUE(collected) << collected.error().describe();
    EXPECT_EQ(collected->status, 200);
    EXPECT_EQ(collected->body, "abcdef");
  }
  EXPECT_EQ(server->connections_accepted(), 1);
}

/// The whole of one streamed answer `response`, read with `idle_timeout`.
Result<CollectedStream> stream_with_idle_limit(TestResponse response, std::chrono::milliseconds idle_timeout) {
  auto server = TestServer::start([response](const TestRequest&) { return response; });
  ClientOptions options = fast_options();
  options.stream_idle_timeout = idle_timeout;
  auto client = make_client(server->url(), options);
  HttpRequest request;
  request.target = "/s";
  return BlockingClient(*client).raw_stream(request);
}

TEST(RawStream, IdleStreamsTimeOut) {
  TestResponse r;
  r.chunks = {"x"};
  r.hold_open = true;
  auto collected = stream_with_idle_limit(r, 200ms);
  ASSERT_FALSE(collected);
  EXPECT_TRUE(collected.error().is_timeout());
}

TEST(RawStream, DataWithinTheIdleLimitKeepsAStreamOpenPastIt) {
  // Six chunks 100 ms apart with a 250 ms idle limit: the stream lasts over 500 ms but is
  // never quiet for 250 ms, so it must not time out (an idle limit that is not reset by
  // data would cut it).
  TestResponse r;
  r.chunks = {"a", "b", "c", "d", "e", "f"};
  r.chunk_delay = 100ms;
  auto collected = stream_with_idle_limit(r, 250ms);
  ASSERT_TRUE(collected) << collected.error().describe();
  EXPECT_EQ(collected->body, "abcdef");
}

}  // namespace
}  // namespace kueuepp::kube::client
