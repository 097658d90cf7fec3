#include "kube/apiserver/conformance/trace.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "kube/apiserver/conformance/replayer.hpp"

namespace kueuepp::kube::conformance {
namespace {

TEST(Trace, ParsesEveryField) {
  auto trace = parse_trace(R"({
    "name": "s99-demo", "description": "d", "extra": "ignored",
    "steps": [{
      "comment": "c", "unknownKey": 1,
      "request": {"method": "PUT", "path": "/apis/batch/v1/namespaces/n/jobs/j",
                  "headers": {"Accept": "application/json", "Content-Type": "application/json"},
                  "body": {"metadata": {"resourceVersion": "${rv1}"}}},
      "response": {"status": 200, "body": {"kind": "Job"}, "warnings": ["w"]},
      "capture": {"rv2": "metadata.resourceVersion"},
      "ignore": ["**.managedFields", "spec.selector"],
      "contains": ["resources"],
      "asserts": [{"path": "metadata.generation", "op": "eq", "value": 1}, {"path": "x", "op": "absent"}],
      "poll": {"timeout_seconds": 5, "interval_seconds": 0.5}
    }, {
      "request": {"method": "GET", "path": "/apis/batch/v1/jobs?timeoutSeconds=1&watch=true"},
      "response": {"status": 200, "events": []}
    }]})", "file.json");
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_EQ(trace->name, "s99-demo");
  ASSERT_EQ(trace->steps.size(), 2u);
  const TraceStep& s = trace->steps[0];
  EXPECT_EQ(s.number, 1u);
  EXPECT_EQ(s.method, "PUT");
  EXPECT_FALSE(s.watch);
  EXPECT_EQ(s.headers.size(), 2u);
  EXPECT_TRUE(s.body.is_object());
  EXPECT_EQ(s.status, 200);
  EXPECT_EQ(s.warnings->at(0), "w");
  EXPECT_EQ(s.captures.at(0).first, "rv2");
  EXPECT_EQ(s.ignore.size(), 2u);
  EXPECT_EQ(s.contains.size(), 1u);
  EXPECT_EQ(s.asserts.size(), 2u);
  EXPECT_EQ(s.asserts[1].op, Assertion::Op::Absent);
  EXPECT_DOUBLE_EQ(s.poll->timeout_seconds, 5);
  EXPECT_DOUBLE_EQ(s.poll->interval_seconds, 0.5);
  const TraceStep& w = trace->steps[1];
  EXPECT_TRUE(w.watch);
  EXPECT_TRUE(w.body.is_null());
  EXPECT_TRUE(w.events.has_value());
  EXPECT_FALSE(w.response_body.has_value());
}

TEST(Trace, TheNameDefaultsToTheFileStem) {
  auto trace = parse_trace(R"({"steps": []})", "/x/s42-thing.json");
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->name, "s42-thing");
}

TEST(Trace, DetectsWatchQueries) {
  EXPECT_TRUE(is_watch_path("/x?watch=1"));
  EXPECT_TRUE(is_watch_path("/x?a=b&watch=true&c"));
  EXPECT_FALSE(is_watch_path("/x?watch=0"));
  EXPECT_FALSE(is_watch_path("/x?nowatch=1"));
  EXPECT_FALSE(is_watch_path("/watch=1"));
}

TEST(Trace, MalformedTracesAreRejectedWithTheStep) {
  const char* bad[] = {
      "not json",
      "[]",
      R"({"name": "x"})",
      R"({"steps": [{"response": {"status": 200}}]})",
      R"({"steps": [{"request": {"method": "GET", "path": "/"}, "response": {}}]})",
      R"({"steps": [{"request": {"method": "GET", "path": "/"}, "response": {"status": 200}, "ignore": ["a..b"]}]})",
      R"({"steps": [{"request": {"method": "GET", "path": "/"}, "response": {"status": 200}, "capture": {"x": "a.*"}}]})",
      R"({"steps": [{"request": {"method": "GET", "path": "/"}, "response": {"status": 200}, "asserts": [{"path": "a", "op": "gt"}]}]})",
      R"({"steps": [{"request": {"method": "GET", "path": "/"}, "response": {"status": 200}, "contains": ["**.x"]}]})",
  };
  for (const char* text : bad) {
    auto trace = parse_trace(text, "bad.json");
    EXPECT_FALSE(trace) << text;
    if (!trace) {
      EXPECT_NE(trace.error().message.find("bad.json"), std::string::npos);
    }
  }
  auto step2 = parse_trace(R"({"steps": [{"request": {"method": "GET", "path": "/"}, "response": {"status": 200}},
                                          {"request": {"method": "GET"}, "response": {"status": 200}}]})", "f.json");
  ASSERT_FALSE(step2);
  EXPECT_NE(step2.error().message.find("f.json step 2"), std::string::npos);
  EXPECT_FALSE(load_trace("/nonexistent/trace.json"));
}

// Every shared trace must load: its paths, asserts and captures are well-formed.
TEST(Trace, AllSharedTracesLoad) {
  const std::filesystem::path dir =
      std::filesystem::path(KUEUEPP_SOURCE_DIR) / ".." / "shared" / "apiserver-conformance" / "traces";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "shared traces not found at " << dir;
  auto files = collect_trace_files({dir.string()});
  ASSERT_TRUE(files);
  ASSERT_GE(files->size(), 23u);
  std::size_t steps = 0, watches = 0;
  for (const std::string& f : *files) {
    auto trace = load_trace(f);
    ASSERT_TRUE(trace) << trace.error().message;
    EXPECT_FALSE(trace->steps.empty()) << f;
    for (const TraceStep& s : trace->steps) {
      ++steps;
      if (s.watch) {
        ++watches;
        EXPECT_TRUE(s.events || s.response_body) << f;
      }
    }
  }
  EXPECT_GT(steps, 200u);
  EXPECT_GE(watches, 5u);
}

}  // namespace
}  // namespace kueuepp::kube::conformance
