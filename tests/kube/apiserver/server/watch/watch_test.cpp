// WATCH: events after a resourceVersion (exclusive) in order, the initial ADDED events
// of a watch without one, label-selector transitions, bookmarks, 410 once a version has
// left the history window, many concurrent watchers, and a watcher that never reads
// not holding up writers.

#include <atomic>
#include <thread>

#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kJobs = "/apis/batch/v1/namespaces/team/jobs";
constexpr std::string_view kCms = "/api/v1/namespaces/team/configmaps";

/// One watch stream over its own connection.
class WatchStream {
 public:
  WatchStream(std::uint16_t port, const std::string& target) : conn_(port) {
    auto head = conn_.start_stream(target);
    status_ = head ? head->status : 0;
    if (head) content_type_ = head->header("content-type");
  }
  int status() const { return status_; }
  const std::string& content_type() const { return content_type_; }
  HttpConnection& connection() { return conn_; }

  /// The next event of any type (nullopt at the end of the stream or on timeout).
  std::optional<json::value> next(std::chrono::milliseconds timeout = 10s) {
    auto line = conn_.next_line(timeout);
    if (!line) return std::nullopt;
    auto event = json::parse(*line);
    EXPECT_TRUE(event) << *line;
    return event ? std::optional<json::value>(std::move(*event)) : std::nullopt;
  }
  /// The next event that is not a BOOKMARK.
  std::optional<json::value> next_change(std::chrono::milliseconds timeout = 10s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      auto event = next(left);
      if (!event || str(*event, "/type") != "BOOKMARK") return event;
    }
  }

 private:
  HttpConnection conn_;
  int status_ = 0;
  std::string content_type_;
};

/// "TYPE name" of an event, for compact comparisons.
std::string summary(const std::optional<json::value>& event) {
  if (!event) return "<none>";
  return str(*event, "/type") + " " + str(*event, "/object/metadata/name");
}

json::value config_map(std::string_view name, json::object labels = {}, std::string data = "v") {
  return json::object{{"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}},
                      {"data", json::object{{"k", std::move(data)}}}};
}

class ApiServerWatch : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    make_namespace("team");
  }
  std::string list_rv(std::string_view collection) { return str(get_ok(collection), "/metadata/resourceVersion"); }
  std::unique_ptr<WatchStream> watch(const std::string& target) {
    auto w = std::make_unique<WatchStream>(port(), target);
    EXPECT_EQ(w->status(), 200) << target;
    return w;
  }
};

TEST_F(ApiServerWatch, EventsAfterAResourceVersionInOrder) {
  std::string start = list_rv(kJobs);
  json::value added = create(kJobs, job("j1"));
  json::value modified = expect(200, api().patch(std::string(kJobs) + "/j1", json::object{{"spec", json::object{{"parallelism", 2}}}}));
  ASSERT_EQ(api().del(std::string(kJobs) + "/j1?propagationPolicy=Background").status, 200);

  // From before the changes: all three, in order, with their versions.
  auto w = watch(std::string(kJobs) + "?watch=1&resourceVersion=" + start);
  EXPECT_EQ(w->content_type(), "application/json");
  auto e1 = w->next_change();
  auto e2 = w->next_change();
  auto e3 = w->next_change();
  EXPECT_EQ(summary(e1), "ADDED j1");
  EXPECT_EQ(summary(e2), "MODIFIED j1");
  EXPECT_EQ(summary(e3), "DELETED j1");
  ASSERT_TRUE(e1 && e2 && e3);
  EXPECT_EQ(rv_of(*at(*e1, "/object")), rv_of(added));
  EXPECT_EQ(rv_of(*at(*e2, "/object")), rv_of(modified));
  EXPECT_GT(rv_of(*at(*e3, "/object")), rv_of(modified));
  EXPECT_EQ(num(*e2, "/object/spec/parallelism"), 2);

  // The resourceVersion is exclusive: from the ADDED version on, the rest.
  auto w2 = watch(std::string(kJobs) + "?watch=1&resourceVersion=" + std::to_string(rv_of(added)));
  EXPECT_EQ(summary(w2->next_change()), "MODIFIED j1");
  EXPECT_EQ(summary(w2->next_change()), "DELETED j1");

  // Live changes follow, in order.
  create(kJobs, job("j2"));
  ASSERT_EQ(api().patch(std::string(kJobs) + "/j2", json::object{{"metadata", json::object{{"labels", json::object{{"x", "y"}}}}}}).status, 200);
  ASSERT_EQ(api().del(std::string(kJobs) + "/j2?propagationPolicy=Background").status, 200);
  for (auto* stream : {w.get(), w2.get()}) {
    EXPECT_EQ(summary(stream->next_change()), "ADDED j2");
    auto m = stream->next_change();
    EXPECT_EQ(summary(m), "MODIFIED j2");
    if (m) {
      EXPECT_EQ(str(*m, "/object/metadata/labels/x"), "y");
    }
    EXPECT_EQ(summary(stream->next_change()), "DELETED j2");
  }
}

TEST_F(ApiServerWatch, WithoutAResourceVersionStartsWithTheCurrentObjects) {
  create(kCms, config_map("a"));
  create(kCms, config_map("b"));
  auto w = watch(std::string(kCms) + "?watch=true");
  EXPECT_EQ(summary(w->next_change()), "ADDED a");
  EXPECT_EQ(summary(w->next_change()), "ADDED b");
  create(kCms, config_map("c"));
  EXPECT_EQ(summary(w->next_change()), "ADDED c");
  // Other namespaces and kinds are not in this watch.
  make_namespace("other");
  create("/api/v1/namespaces/other/configmaps", config_map("elsewhere"));
  create(kJobs, job("j"));
  create(kCms, config_map("d"));
  EXPECT_EQ(summary(w->next_change()), "ADDED d");
}

TEST_F(ApiServerWatch, SelectorsTurnTransitionsIntoAddedAndDeleted) {
  auto w = watch(std::string(kCms) + "?watch=1&labelSelector=app%3Dweb&resourceVersion=" + list_rv(kCms));
  create(kCms, config_map("x", {{"app", "db"}}));
  ASSERT_EQ(api().patch(std::string(kCms) + "/x", json::object{{"metadata", json::object{{"labels", json::object{{"app", "web"}}}}}}).status, 200);
  ASSERT_EQ(api().patch(std::string(kCms) + "/x", json::object{{"data", json::object{{"k", "2"}}}}).status, 200);
  json::value moved = expect(200, api().patch(std::string(kCms) + "/x", json::object{{"metadata", json::object{{"labels", json::object{{"app", "db"}}}}}}));
  auto added = w->next_change();
  EXPECT_EQ(summary(added), "ADDED x");
  EXPECT_EQ(summary(w->next_change()), "MODIFIED x");
  auto gone = w->next_change();
  EXPECT_EQ(summary(gone), "DELETED x");
  ASSERT_TRUE(gone);
  // The DELETED event carries the previous (matching) content at the new version.
  EXPECT_EQ(str(*gone, "/object/metadata/labels/app"), "web");
  EXPECT_EQ(rv_of(*at(*gone, "/object")), rv_of(moved));

  // A watch of one object by name.
  auto named = watch(std::string(kCms) + "?watch=1&fieldSelector=metadata.name%3Dy&resourceVersion=" + list_rv(kCms));
  create(kCms, config_map("z"));
  create(kCms, config_map("y"));
  EXPECT_EQ(summary(named->next_change()), "ADDED y");
}

TEST_F(ApiServerWatch, DeletedAfterTheLastFinalizerCarriesTheLastStoredState) {
  json::value cm = config_map("held");
  cm.as_object()["metadata"].as_object()["finalizers"] = json::array{"example.com/hold"};
  create(kCms, cm);
  auto w = watch(std::string(kCms) + "?watch=1&resourceVersion=" + list_rv(kCms));
  ASSERT_EQ(api().del(std::string(kCms) + "/held").status, 200);
  ASSERT_EQ(api().patch(std::string(kCms) + "/held", json::object{{"metadata", json::object{{"finalizers", nullptr}}}}).status, 200);
  auto marked = w->next_change();
  EXPECT_EQ(summary(marked), "MODIFIED held");
  auto deleted = w->next_change();
  EXPECT_EQ(summary(deleted), "DELETED held");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(json::dump(*at(*deleted, "/object/metadata/finalizers")), R"(["example.com/hold"])");
}

TEST_F(ApiServerWatch, TimeoutSecondsEndsTheStream) {
  auto started = std::chrono::steady_clock::now();
  auto w = watch(std::string(kCms) + "?watch=1&timeoutSeconds=1&resourceVersion=" + list_rv(kCms));
  EXPECT_FALSE(w->next(10s).has_value());  // the server ends it
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_GE(took, 900ms);
  EXPECT_LT(took, 8s);
  EXPECT_TRUE(w->connection().closed_by_peer(5s));
  EXPECT_EQ(WatchStream(port(), std::string(kCms) + "?watch=1&timeoutSeconds=-1").status(), 400);
}

TEST_F(ApiServerWatch, ManyConcurrentWatchersAllGetAWrite) {
  std::string from = list_rv(kCms);
  std::vector<std::unique_ptr<WatchStream>> watchers;
  for (int i = 0; i < 50; ++i) {
    // Mixed starting points and filters, all of which select the write.
    std::string target = std::string(kCms) + "?watch=1" + (i % 2 == 0 ? "&resourceVersion=" + from : "") +
                         (i % 3 == 0 ? "&labelSelector=fan%3Dout" : "");
    watchers.push_back(watch(target));
  }
  json::value written = create(kCms, config_map("broadcast", {{"fan", "out"}}));
  for (std::size_t i = 0; i < watchers.size(); ++i) {
    auto event = watchers[i]->next_change();
    EXPECT_EQ(summary(event), "ADDED broadcast") << "watcher " << i;
    if (event) {
      EXPECT_EQ(rv_of(*at(*event, "/object")), rv_of(written)) << "watcher " << i;
    }
  }
  // And the next one, in order.
  ASSERT_EQ(api().del(std::string(kCms) + "/broadcast").status, 200);
  for (std::size_t i = 0; i < watchers.size(); ++i) {
    EXPECT_EQ(summary(watchers[i]->next_change()), "DELETED broadcast") << "watcher " << i;
  }
  // Closing the watchers leaves the server serving.
  watchers.clear();
  EXPECT_EQ(item_names(get_ok(kCms)), std::vector<std::string>{});
}

TEST_F(ApiServerWatch, UnknownResourcesAndBadParameters) {
  EXPECT_EQ(api().get("/api/v1/namespaces/team/foos?watch=1").status, 404);
  EXPECT_EQ(api().get(std::string(kCms) + "?watch=1&resourceVersion=abc").status, 400);
  EXPECT_EQ(api().get(std::string(kCms) + "?watch=1&labelSelector=a%20in%20b").status, 400);
}

// -- bookmarks --------------------------------------------------------------------------

class ApiServerWatchBookmarks : public ApiServerWatch {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.bookmark_interval = 50ms;
    return o;
  }
};

TEST_F(ApiServerWatchBookmarks, SentOnlyWhenAllowedAndCarryTheLatestVersion) {
  std::string from = list_rv(kJobs);
  auto with = watch(std::string(kJobs) + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + from);
  auto without = watch(std::string(kJobs) + "?watch=1&resourceVersion=" + from);
  // A write elsewhere moves the cluster's version; the jobs watch learns it from a bookmark.
  json::value cm = create(kCms, config_map("elsewhere"));
  std::optional<json::value> bookmark;
  ASSERT_TRUE(wait_until([&] {
    auto e = with->next(1s);
    if (e && str(*e, "/type") == "BOOKMARK") bookmark = e;
    return bookmark.has_value();
  }));
  EXPECT_EQ(str(*bookmark, "/object/kind"), "Job");
  EXPECT_EQ(str(*bookmark, "/object/apiVersion"), "batch/v1");
  EXPECT_GE(rv_of(*at(*bookmark, "/object")), rv_of(cm));
  // Bookmarks keep coming, never going back.
  std::uint64_t last = rv_of(*at(*bookmark, "/object"));
  json::value cm2 = create(kCms, config_map("elsewhere2"));
  ASSERT_TRUE(wait_until([&] {
    auto e = with->next(1s);
    if (!e || str(*e, "/type") != "BOOKMARK") return false;
    EXPECT_GE(rv_of(*at(*e, "/object")), last);
    last = rv_of(*at(*e, "/object"));
    return last >= rv_of(cm2);
  }));
  // The watch without allowWatchBookmarks got none: its first event is the next change.
  create(kJobs, job("j1"));
  auto first = without->next(10s);
  EXPECT_EQ(summary(first), "ADDED j1");
  EXPECT_EQ(summary(with->next_change()), "ADDED j1");
}

TEST_F(ApiServerWatchBookmarks, InitialEventsEndWithAnAnnotatedBookmark) {
  create(kCms, config_map("a"));
  create(kCms, config_map("b"));
  auto w = watch(std::string(kCms) +
                 "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan");
  EXPECT_EQ(summary(w->next()), "ADDED a");
  EXPECT_EQ(summary(w->next()), "ADDED b");
  auto end = w->next();
  ASSERT_TRUE(end);
  EXPECT_EQ(str(*end, "/type"), "BOOKMARK");
  EXPECT_EQ(str(*end, "/object/metadata/annotations/k8s.io~1initial-events-end"), "true");
}

class ApiServerDurableWatchBookmarks : public ApiServerWatch {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.data_dir = dir_.path();
    o.fsync = true;  // writes wait for the disk: bookmarks come due meanwhile
    o.bookmark_interval = 1ms;
    return o;
  }
  TempDir dir_;
};

TEST_F(ApiServerDurableWatchBookmarks, BookmarksNeverRunAheadOfTheEvents) {
  // A BOOKMARK at version B tells the client it has every event up to B (a client that
  // reconnects resumes after B). So no event may follow with a version <= B, even while
  // writes wait for the disk.
  create(kCms, config_map("c"));
  auto w = watch(std::string(kCms) + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + list_rv(kCms));
  constexpr int kWrites = 300;
  std::atomic<int> modified{0};
  std::atomic<int> bookmarks{0};
  std::vector<std::string> violations;
  std::thread reader([&] {
    std::uint64_t bookmarked = 0;
    while (modified < kWrites) {
      auto e = w->next(30s);
      if (!e) return;
      std::uint64_t rv = rv_of(*at(*e, "/object"));
      if (str(*e, "/type") == "BOOKMARK") {
        bookmarked = std::max(bookmarked, rv);
        ++bookmarks;
        continue;
      }
      if (rv <= bookmarked) {
        violations.push_back(str(*e, "/type") + " at " + std::to_string(rv) + " after a bookmark at " +
                             std::to_string(bookmarked));
      }
      ++modified;
    }
  });
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_EQ(api().patch(std::string(kCms) + "/c", json::object{{"data", json::object{{"k", std::to_string(i)}}}}).status,
              200);
  }
  reader.join();
  EXPECT_EQ(modified.load(), kWrites);
  EXPECT_GT(bookmarks.load(), 0);
  EXPECT_TRUE(violations.empty()) << violations.size() << " events behind a bookmark, first: " << violations.front();
}

// -- the history window -------------------------------------------------------------------

class ApiServerWatchHistory : public ApiServerWatch {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.watch_history = 8;
    return o;
  }
};

/// A 410 for a watch: kube-apiserver answers 200 and an ERROR event carrying the Status;
/// an HTTP 410 with the Status is accepted too. Returns the Status.
json::value expect_gone(const HttpReply& reply) {
  json::value status;
  if (reply.status == 410) {
    status = body_json(reply);
  } else {
    EXPECT_EQ(reply.status, 200) << reply.body;
    auto first_line = reply.body.substr(0, reply.body.find('\n'));
    json::value event = [&] {
      auto parsed = json::parse(first_line);
      return parsed ? std::move(*parsed) : json::value();
    }();
    EXPECT_EQ(str(event, "/type"), "ERROR") << reply.body;
    status = event.is_object() && at(event, "/object") ? *at(event, "/object") : json::value();
  }
  EXPECT_EQ(str(status, "/kind"), "Status") << reply.body;
  EXPECT_EQ(num(status, "/code"), 410) << reply.body;
  EXPECT_TRUE(str(status, "/reason") == "Expired" || str(status, "/reason") == "Gone") << reply.body;
  return status;
}

TEST_F(ApiServerWatchHistory, VersionsThatLeftTheWindowAre410) {
  std::string old = list_rv(kCms);
  auto early = watch(std::string(kCms) + "?watch=1&resourceVersion=" + old);  // opened in time: unaffected
  for (int i = 0; i < 20; ++i) create(kCms, config_map("cm-" + std::to_string(i)));
  expect_gone(api().get(std::string(kCms) + "?watch=1&resourceVersion=" + old));
  // The server keeps serving; a recent version still works.
  std::string recent = list_rv(kCms);
  auto w = watch(std::string(kCms) + "?watch=1&resourceVersion=" + recent);
  create(kCms, config_map("after"));
  EXPECT_EQ(summary(w->next_change()), "ADDED after");
  // Versions still in the window replay.
  auto replay = watch(std::string(kCms) + "?watch=1&resourceVersion=" + std::to_string(std::stoull(recent) - 3));
  EXPECT_EQ(summary(replay->next_change()), "ADDED cm-17");
  // The watch opened before the writes saw them all.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(summary(early->next_change()), "ADDED cm-" + std::to_string(i));
  EXPECT_EQ(summary(early->next_change()), "ADDED after");
  // Lists: an Exact read and a continue token from before the window are 410 too.
  EXPECT_EQ(api().get(std::string(kCms) + "?resourceVersion=" + old + "&resourceVersionMatch=Exact").status, 410);
}

TEST_F(ApiServerWatchHistory, ExpiredContinueTokensAre410) {
  for (int i = 0; i < 4; ++i) create(kCms, config_map("cm-" + std::to_string(i)));
  json::value page = get_ok(std::string(kCms) + "?limit=2");
  std::string token = str(page, "/metadata/continue");
  ASSERT_FALSE(token.empty());
  for (int i = 0; i < 20; ++i) create(kCms, config_map("more-" + std::to_string(i)));
  json::value status = expect(410, api().get(std::string(kCms) + "?limit=2&continue=" + token));
  EXPECT_EQ(str(status, "/reason"), "Expired");
}

// -- slow clients -------------------------------------------------------------------------

class ApiServerSlowWatchers : public ApiServerWatch {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.watch_buffer_bytes = 1 << 20;
    return o;
  }
};

TEST_F(ApiServerSlowWatchers, AStalledWatcherDoesNotBlockWriters) {
  create(kCms, config_map("big"));
  std::string from = list_rv(kCms);
  // A watcher that never reads.
  HttpConnection stalled(port());
  ASSERT_TRUE(stalled.start_stream(std::string(kCms) + "?watch=1&resourceVersion=" + from));
  // A healthy watcher reading everything on its own thread.
  auto healthy = watch(std::string(kCms) + "?watch=1&resourceVersion=" + from);
  std::atomic<int> seen{0};
  std::thread reader([&] {
    while (seen < 100) {
      auto e = healthy->next_change(30s);
      if (!e) return;
      if (str(*e, "/type") == "MODIFIED") ++seen;
    }
  });

  // 100 writes of 128 KiB each: far more than the stalled connection (the socket
  // buffers of a peer that does not read, and the 1 MiB the server may queue for it) can
  // absorb.
  std::string payload(128 << 10, 'x');
  auto started = std::chrono::steady_clock::now();
  int ok = 0;
  for (int i = 0; i < 100; ++i) {
    payload[0] = static_cast<char>('a' + i % 26);
    payload[1] = static_cast<char>('a' + i / 26);
    HttpReply r = api().patch(std::string(kCms) + "/big", json::object{{"data", json::object{{"k", payload}}}});
    ok += r.status == 200 ? 1 : 0;
  }
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(ok, 100);
  EXPECT_LT(took, 20s) << "writes took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
  reader.join();
  EXPECT_EQ(seen.load(), 100);

  // The stalled watcher was ended with a 410 ERROR event once it fell too far behind:
  // reading now, it finds some events, then the ERROR, then the end of the stream.
  int before_error = 0;
  std::optional<json::value> last;
  while (true) {
    auto line = stalled.next_line(10s);
    if (!line) break;
    auto event = json::parse(*line);
    ASSERT_TRUE(event);
    last = std::move(*event);
    if (str(*last, "/type") == "ERROR") break;
    ++before_error;
  }
  ASSERT_TRUE(last);
  EXPECT_EQ(str(*last, "/type"), "ERROR");
  EXPECT_EQ(num(*last, "/object/code"), 410);
  EXPECT_LT(before_error, 100);
  EXPECT_FALSE(stalled.next_line(10s).has_value());
  // The server is fine.
  EXPECT_EQ(item_names(get_ok(kCms)), std::vector<std::string>{"big"});
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
