#include "kube/apiserver/conformance/replayer.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>

namespace kueuepp::kube::conformance {
namespace {

using namespace std::chrono_literals;

// Answers from a queue and records what was sent.
class FakeTransport final : public ReplayTransport {
 public:
  std::deque<Expected<ActualResponse>> answers;
  std::vector<client::HttpRequest> sent;
  std::vector<bool> sent_as_watch;

  Expected<ActualResponse> send(const client::HttpRequest& r) override { return next(r, false); }
  Expected<ActualResponse> send_watch(const client::HttpRequest& r) override { return next(r, true); }

 private:
  Expected<ActualResponse> next(const client::HttpRequest& r, bool watch) {
    sent.push_back(r);
    sent_as_watch.push_back(watch);
    if (answers.empty()) return fail("no more answers");
    auto a = std::move(answers.front());
    answers.pop_front();
    return a;
  }
};

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  std::vector<std::chrono::milliseconds> sleeps;
  ReplayClock clock() {
    return {[this] { return now; }, [this](std::chrono::milliseconds d) {
              sleeps.push_back(d);
              now += d;
            }};
  }
};

ActualResponse json_answer(int status, std::string body) {
  return ActualResponse{status, {{"Content-Type", "application/json"}}, std::move(body)};
}

Trace trace_of(std::string_view text) {
  auto t = parse_trace(text, "t.json");
  EXPECT_TRUE(t) << t.error().message;
  return *t;
}

const char* kTwoSteps = R"({"name": "s-demo", "steps": [
  {"request": {"method": "POST", "path": "/api/v1/namespaces",
               "headers": {"Accept": "application/json", "Content-Type": "application/json"},
               "body": {"metadata": {"name": "ns1"}}},
   "response": {"status": 201, "body": {"metadata": {"name": "ns1", "uid": "<uid>", "resourceVersion": "<rv>"}}},
   "capture": {"rv1": "metadata.resourceVersion", "uid": "metadata.uid"}},
  {"request": {"method": "PUT", "path": "/api/v1/namespaces/ns1?rv=${rv1}",
               "headers": {"Content-Type": "application/json"},
               "body": {"metadata": {"name": "ns1", "resourceVersion": "${rv1}", "uid": "${uid}"}}},
   "response": {"status": 200, "body": {"metadata": {"name": "ns1"}}},
   "asserts": [{"path": "metadata.resourceVersion", "op": "ne", "value": "${rv1}"}]}
]})";

TEST(Replayer, SendsStepsWithCapturedValuesSubstituted) {
  FakeTransport transport;
  transport.answers.push_back(json_answer(201, R"({"metadata":{"name":"ns1","uid":"u 1","resourceVersion":"100"}})"));
  transport.answers.push_back(json_answer(200, R"({"metadata":{"name":"ns1","resourceVersion":"101"}})"));
  const TraceResult result = replay_trace(trace_of(kTwoSteps), transport);
  EXPECT_TRUE(result.passed) << result.failure;
  EXPECT_EQ(format_result(result), "PASS s-demo");
  ASSERT_EQ(transport.sent.size(), 2u);
  EXPECT_EQ(transport.sent[0].method, "POST");
  EXPECT_EQ(*transport.sent[0].body, R"({"metadata":{"name":"ns1"}})");
  EXPECT_EQ(transport.sent[0].headers.size(), 2u);
  EXPECT_EQ(transport.sent[1].target, "/api/v1/namespaces/ns1?rv=100");
  EXPECT_EQ(*transport.sent[1].body, R"({"metadata":{"name":"ns1","resourceVersion":"100","uid":"u 1"}})");
  EXPECT_FALSE(transport.sent_as_watch[1]);
}

TEST(Replayer, TheFirstFailingStepFailsTheTraceWithItsDifference) {
  FakeTransport transport;
  transport.answers.push_back(json_answer(201, R"({"metadata":{"name":"ns1","uid":"u","resourceVersion":"100"}})"));
  transport.answers.push_back(json_answer(200, R"({"metadata":{"name":"ns1","resourceVersion":"100"}})"));
  const TraceResult result = replay_trace(trace_of(kTwoSteps), transport);
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(format_result(result),
            R"(FAIL s-demo: step 2 PUT /api/v1/namespaces/ns1?rv=100: assert metadata.resourceVersion ne "100": actual "100")");
}

TEST(Replayer, TransportFailuresAndMissingCapturesFailTheStep) {
  FakeTransport transport;
  transport.answers.push_back(fail("connection refused"));
  TraceResult result = replay_trace(trace_of(kTwoSteps), transport);
  EXPECT_EQ(result.failure, "step 1 POST /api/v1/namespaces: request failed: connection refused");

  FakeTransport no_uid;
  no_uid.answers.push_back(json_answer(201, R"({"metadata":{"name":"ns1","resourceVersion":"1"}})"));
  result = replay_trace(trace_of(R"({"name":"x","steps":[{"request":{"method":"GET","path":"/a"},
      "response":{"status":201,"body":{}},"capture":{"uid":"metadata.uid"}}]})"), no_uid);
  EXPECT_EQ(result.failure, "step 1 GET /a: capture uid: nothing at metadata.uid in the actual body");

  FakeTransport unused;
  result = replay_trace(trace_of(R"({"name":"x","steps":[{"request":{"method":"GET","path":"/a/${never}"},
      "response":{"status":200}}]})"), unused);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("${never}"), std::string::npos);
  EXPECT_TRUE(unused.sent.empty());
}

TEST(Replayer, PollRepeatsUntilTheStepPassesOrTimesOut) {
  const char* polled = R"({"name":"gc","steps":[{"request":{"method":"GET","path":"/api/v1/namespaces/x/configmaps/owned"},
      "response":{"status":404,"body":{"kind":"Status"}},"poll":{"timeout_seconds":1,"interval_seconds":0.2}}]})";
  FakeTransport eventually;
  eventually.answers.push_back(json_answer(200, "{}"));
  eventually.answers.push_back(json_answer(200, "{}"));
  eventually.answers.push_back(json_answer(404, R"({"kind":"Status"})"));
  FakeClock clock;
  TraceResult result = replay_trace(trace_of(polled), eventually, clock.clock());
  EXPECT_TRUE(result.passed) << result.failure;
  EXPECT_EQ(eventually.sent.size(), 3u);
  EXPECT_EQ(clock.sleeps, (std::vector<std::chrono::milliseconds>{200ms, 200ms}));

  FakeTransport never;
  for (int i = 0; i < 20; ++i) never.answers.push_back(json_answer(200, "{}"));
  FakeClock clock2;
  result = replay_trace(trace_of(polled), never, clock2.clock());
  EXPECT_FALSE(result.passed);
  EXPECT_EQ(never.sent.size(), 6u);  // t = 0, .2, .4, .6, .8, 1.0 → stops
  EXPECT_NE(result.failure.find("status: expected 404, actual 200"), std::string::npos);

  // Without poll a failure is final at once.
  FakeTransport once;
  once.answers.push_back(json_answer(200, "{}"));
  FakeClock clock3;
  result = replay_trace(trace_of(R"({"name":"x","steps":[{"request":{"method":"GET","path":"/a"},
      "response":{"status":404}}]})"), once, clock3.clock());
  EXPECT_FALSE(result.passed);
  EXPECT_TRUE(clock3.sleeps.empty());
}

TEST(Replayer, WatchStepsUseTheStreamingTransport) {
  FakeTransport transport;
  transport.answers.push_back(json_answer(200, R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})" "\n"));
  const TraceResult result = replay_trace(trace_of(R"({"name":"w","steps":[{"request":{"method":"GET",
      "path":"/apis/batch/v1/namespaces/n/jobs?watch=1&resourceVersion=1&timeoutSeconds=1"},
      "response":{"status":200,"events":[{"type":"ADDED","object":{"metadata":{"name":"a"}}}]}}]})"),
                                          transport);
  EXPECT_TRUE(result.passed) << result.failure;
  EXPECT_TRUE(transport.sent_as_watch.at(0));
}

TEST(Replayer, StringBodiesAreSentVerbatimAndNullBodiesNotAtAll) {
  FakeTransport transport;
  transport.answers.push_back(json_answer(400, "{}"));
  transport.answers.push_back(json_answer(201, "{}"));
  transport.answers.push_back(json_answer(200, "{}"));
  const TraceResult result = replay_trace(trace_of(R"({"name":"b","steps":[
      {"request":{"method":"POST","path":"/a","body":"{\"truncated\":"},"response":{"status":400}},
      {"request":{"method":"POST","path":"/a","body":""},"response":{"status":201}},
      {"request":{"method":"GET","path":"/a","body":null},"response":{"status":200}}]})"),
                                          transport);
  EXPECT_TRUE(result.passed) << result.failure;
  EXPECT_EQ(*transport.sent[0].body, "{\"truncated\":");
  EXPECT_EQ(*transport.sent[1].body, "");
  EXPECT_FALSE(transport.sent[2].body.has_value());
}

TEST(Runner, CollectsFilesRunsThemAndSummarizes) {
  const auto dir = std::filesystem::temp_directory_path() / ("kueuepp-replayer-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "b.json") << R"({"name":"b","steps":[{"request":{"method":"GET","path":"/b"},"response":{"status":200}}]})";
  std::ofstream(dir / "a.json") << R"({"name":"a","steps":[{"request":{"method":"GET","path":"/a"},"response":{"status":200}}]})";
  std::ofstream(dir / "c.json") << "{ not json";
  std::ofstream(dir / "notes.txt") << "ignored";
  auto files = collect_trace_files({dir.string()});
  ASSERT_TRUE(files);
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ(std::filesystem::path(files->at(0)).filename(), "a.json");

  FakeTransport transport;
  transport.answers.push_back(json_answer(200, "{}"));
  transport.answers.push_back(json_answer(500, "{}"));
  std::vector<std::string> lines;
  const RunSummary summary = run_trace_files(*files, transport, [&](const std::string& l) { lines.push_back(l); });
  EXPECT_EQ(summary.passed, 1);
  EXPECT_EQ(summary.failed, 2);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "PASS a");
  EXPECT_EQ(lines[1], "FAIL b: step 1 GET /b: status: expected 200, actual 500 ({})");
  EXPECT_NE(lines[2].find("c.json: unreadable trace"), std::string::npos);
  EXPECT_EQ(lines[3], "1 passed, 2 failed");

  EXPECT_FALSE(collect_trace_files({(dir / "missing").string()}));
  auto single = collect_trace_files({(dir / "b.json").string()});
  ASSERT_TRUE(single);
  EXPECT_EQ(single->size(), 1u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kueuepp::kube::conformance
