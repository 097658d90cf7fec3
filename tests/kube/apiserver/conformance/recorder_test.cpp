#include "kube/apiserver/conformance/recorder.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace kueuepp::kube::conformance {
namespace {

// Answers from a queue and records what was sent.
class FakeTransport final : public ReplayTransport {
 public:
  std::deque<ActualResponse> answers;
  std::vector<client::HttpRequest> sent;

  Expected<ActualResponse> send(const client::HttpRequest& r) override { return next(r); }
  Expected<ActualResponse> send_watch(const client::HttpRequest& r) override { return next(r); }

 private:
  Expected<ActualResponse> next(const client::HttpRequest& r) {
    sent.push_back(r);
    if (answers.empty()) return fail("no more answers");
    auto a = std::move(answers.front());
    answers.pop_front();
    return a;
  }
};

ReplayClock instant_clock(std::chrono::steady_clock::time_point& now) {
  return {[&now] { return now; }, [&now](std::chrono::milliseconds d) { now += d; }};
}

ActualResponse json_answer(int status, std::string body, client::Headers extra = {}) {
  client::Headers headers{{"Content-Type", "application/json"}};
  headers.insert(headers.end(), extra.begin(), extra.end());
  return ActualResponse{status, std::move(headers), std::move(body)};
}

const char* kScript = R"({"name": "e99-demo", "description": "demo.", "steps": [
  {"comment": "kept", "request": {"method": "POST", "path": "/api/v1/namespaces",
               "headers": {"Accept": "application/json", "Content-Type": "application/json"},
               "body": {"metadata": {"name": "ns1"}}},
   "capture": {"rv1": "metadata.resourceVersion"}},
  {"request": {"method": "GET", "path": "/api/v1/namespaces/ns1?rv=${rv1}", "headers": {"Accept": "application/json"}},
   "ignore": ["status"]}
]})";

TEST(ConformanceRecorder, WritesTheNormalizedAnswersIntoTheScriptsSteps) {
  FakeTransport transport;
  transport.answers.push_back(json_answer(
      201, R"({"metadata": {"name": "ns1", "uid": "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", "resourceVersion": "77", "managedFields": []}})"));
  transport.answers.push_back(json_answer(404, R"({"kind": "Status", "message": "gone at 77"})",
                                          {{"Warning", "299 - \"careful\""}}));
  auto now = std::chrono::steady_clock::time_point{};
  auto recorded = record_trace(kScript, "e99.json", transport, {"kube-apiserver v9.9.9"}, instant_clock(now));
  ASSERT_TRUE(recorded) << recorded.error().message;

  ASSERT_EQ(transport.sent.size(), 2u);
  EXPECT_EQ(transport.sent[1].target, "/api/v1/namespaces/ns1?rv=77");
  EXPECT_EQ(json::get_string(*recorded, "description"), "demo. Recorded against kube-apiserver v9.9.9.");
  const json::array& steps = json::find(*recorded, "steps")->as_array();
  auto expected_first = json::parse(R"({"comment": "kept", "request": {"method": "POST", "path": "/api/v1/namespaces",
               "headers": {"Accept": "application/json", "Content-Type": "application/json"},
               "body": {"metadata": {"name": "ns1"}}},
   "capture": {"rv1": "metadata.resourceVersion"},
   "response": {"status": 201, "body": {"metadata": {"name": "ns1", "uid": "<uid>", "resourceVersion": "<rv>"}}},
   "ignore": ["**.managedFields"]})");
  EXPECT_TRUE(json::equal(steps[0], *expected_first)) << json::dump(steps[0]);
  auto expected_second_response = json::parse(
      R"({"status": 404, "body": {"kind": "Status", "message": "gone at <rv>"}, "warnings": ["careful"]})");
  EXPECT_TRUE(json::equal(*json::find(steps[1], "response"), *expected_second_response)) << json::dump(steps[1]);
  auto expected_ignore = json::parse(R"(["**.managedFields", "status"])");
  EXPECT_TRUE(json::equal(*json::find(steps[1], "ignore"), *expected_ignore));
}

TEST(ConformanceRecorder, APolledStepRepeatsUntilTheScriptsStatus) {
  const char* script = R"({"steps": [
    {"request": {"method": "GET", "path": "/api/v1/namespaces/gone", "headers": {"Accept": "application/json"}},
     "response": {"status": 404}, "poll": {"timeout_seconds": 10, "interval_seconds": 1}}]})";
  FakeTransport transport;
  transport.answers.push_back(json_answer(200, R"({"metadata": {"name": "gone"}})"));
  transport.answers.push_back(json_answer(404, R"({"kind": "Status", "code": 404})"));
  auto now = std::chrono::steady_clock::time_point{};
  auto recorded = record_trace(script, "p.json", transport, {}, instant_clock(now));
  ASSERT_TRUE(recorded) << recorded.error().message;
  EXPECT_EQ(transport.sent.size(), 2u);
  const json::value& step = json::find(*recorded, "steps")->as_array()[0];
  EXPECT_EQ(json::find_path(step, {"response", "status"})->to_number<int>(), 404);
}

TEST(ConformanceRecorder, AnAssertTheRealServerDoesNotMeetIsReported) {
  const char* script = R"({"steps": [
    {"request": {"method": "GET", "path": "/api/v1/namespaces/x", "headers": {"Accept": "application/json"}},
     "asserts": [{"path": "metadata.name", "op": "eq", "value": "y"}]}]})";
  FakeTransport transport;
  transport.answers.push_back(json_answer(200, R"({"metadata": {"name": "x"}})"));
  auto recorded = record_trace(script, "a.json", transport, {});
  ASSERT_FALSE(recorded);
  EXPECT_NE(recorded.error().message.find("a.json step 1 GET /api/v1/namespaces/x"), std::string::npos)
      << recorded.error().message;
}

}  // namespace
}  // namespace kueuepp::kube::conformance
