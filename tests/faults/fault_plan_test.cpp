// The fault plan, its decider and the small pieces of the proxy that need no network:
// parsing and refusing plans, seeded replayable choices, watch detection, Status bodies,
// watch line splitting and the stats line.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kube/json/json.hpp"
#include "tests/faults/fault_decider.hpp"
#include "tests/faults/fault_plan.hpp"
#include "tests/faults/fault_stats.hpp"
#include "tests/faults/kube_status.hpp"
#include "tests/faults/watch_lines.hpp"

namespace kueuepp::faults {
namespace {

using namespace std::chrono_literals;

FaultPlan parse(std::string_view text) {
  auto plan = parse_fault_plan(text);
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
  return plan ? std::move(*plan) : FaultPlan();
}

std::string parse_error(std::string_view text) {
  auto plan = parse_fault_plan(text);
  EXPECT_FALSE(plan) << "accepted: " << text;
  return plan ? "" : plan.error().message;
}

TEST(FaultPlan, ParsesTheDocumentedExample) {
  const FaultPlan plan = parse(R"({"seed": 7, "rules": [
      {"match": {"methods": ["PATCH"], "path": "/workloads/[^/]+/status$"}, "fault": "drop_answer", "probability": 0.3},
      {"fault": "blackout", "from_s": 10, "for_s": 15}]})");
  EXPECT_EQ(plan.seed, 7u);
  ASSERT_EQ(plan.rules.size(), 2u);
  EXPECT_EQ(plan.rules[0].kind, FaultKind::drop_answer);
  EXPECT_EQ(plan.rules[0].match.methods, std::vector<std::string>{"PATCH"});
  EXPECT_EQ(plan.rules[0].match.path_regex, "/workloads/[^/]+/status$");
  EXPECT_DOUBLE_EQ(plan.rules[0].probability, 0.3);
  EXPECT_EQ(plan.rules[1].kind, FaultKind::blackout);
  EXPECT_EQ(plan.rules[1].from, 10s);
  EXPECT_EQ(plan.rules[1].duration, std::optional<std::chrono::milliseconds>(15s));
}

TEST(FaultPlan, ParsesEveryKindAndParameter) {
  const FaultPlan plan = parse(R"({"comment": "all kinds", "rules": [
      {"fault": "reset_before", "match": {"method": "post", "path_contains": "/configmaps"}, "first": 2},
      {"fault": "status", "status": 429, "retry_after_s": 3, "every": 4, "limit": 2},
      {"fault": "status", "status": 409, "reason": "Conflict", "message": "m"},
      {"fault": "delay", "delay_ms": 150, "from_s": 0.5, "for_s": 1.25},
      {"fault": "cut_watch_after", "events": 3, "match": {"watch": true}},
      {"fault": "watch_gone", "mode": "answer"},
      {"fault": "watch_gone", "events": 2},
      {"fault": "lag_watch", "delay_ms": 100}]})");
  ASSERT_EQ(plan.rules.size(), 8u);
  EXPECT_EQ(plan.rules[0].match.methods, std::vector<std::string>{"POST"});
  EXPECT_EQ(plan.rules[0].match.path_contains, "/configmaps");
  EXPECT_EQ(plan.rules[0].first, 2u);
  EXPECT_EQ(plan.rules[1].retry_after_seconds, 3);
  EXPECT_EQ(plan.rules[1].every, 4u);
  EXPECT_EQ(plan.rules[1].limit, 2u);
  EXPECT_EQ(plan.rules[2].reason, "Conflict");
  EXPECT_EQ(plan.rules[3].delay, 150ms);
  EXPECT_EQ(plan.rules[3].from, 500ms);
  EXPECT_EQ(plan.rules[3].duration, std::optional<std::chrono::milliseconds>(1250ms));
  EXPECT_EQ(plan.rules[4].events, 3u);
  EXPECT_EQ(plan.rules[5].gone_mode, WatchGoneMode::answer);
  EXPECT_EQ(plan.rules[6].gone_mode, WatchGoneMode::event);
  EXPECT_EQ(plan.rules[6].events, 2u);
  EXPECT_EQ(plan.rules[7].kind, FaultKind::lag_watch);
}

TEST(FaultPlan, RefusesBadPlansWithAMessage) {
  EXPECT_NE(parse_error("{\"rules\": [").find("not valid JSON"), std::string::npos);
  EXPECT_NE(parse_error("[]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "explode"}]})").find("unknown fault \"explode\""), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"match": {}}]})").find("\"fault\" is missing"), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "drop_answer", "match": {"path": "(["}}]})").find("not a valid"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "status"}]})").find("status must be"), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "status", "status": 200}]})").find("between 400 and 599"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "delay"}]})").find("positive delay_ms"), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "drop_answer", "delay_ms": 5}]})").find("delay_ms belongs"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "drop_answer", "probability": 1.5}]})").find("between 0 and 1"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "drop_answer", "every": 2, "first": 1}]})").find("at most one"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "drop_answer", "probabilty": 0.5}]})").find("unknown key"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "blackout", "match": {"methods": ["GET"]}}]})").find("remove match"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "lag_watch", "delay_ms": 5, "match": {"watch": false}}]})")
                .find("watch fault"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "watch_gone", "mode": "answer", "events": 2}]})").find("mode"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "delay", "delay_ms": 5, "from_s": -1}]})").find("seconds"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"seed": -3, "rules": []})").find("seed"), std::string::npos);
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "status", "status": 503, "match": {"methods": [7]}}]})")
                .find("method names"),
            std::string::npos);
  // The error names the rule.
  EXPECT_NE(parse_error(R"({"rules": [{"fault": "reset_before"}, {"fault": "nope"}]})").find("rule 1"),
            std::string::npos);
}

TEST(FaultPlan, LoadNamesTheFile) {
  auto plan = load_fault_plan("/nonexistent/plan.json");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("/nonexistent/plan.json"), std::string::npos);
}

TEST(FaultPlan, CodePlansAreValidatedToo) {
  FaultPlan plan;
  FaultRule rule;
  rule.kind = FaultKind::status;
  rule.status = 503;
  rule.match.path_regex = "[";
  plan.rules.push_back(rule);
  auto decider = FaultDecider::create(plan);
  ASSERT_FALSE(decider);
  EXPECT_NE(decider.error().message.find("rule 0"), std::string::npos);
}

TEST(FaultDecider, RecognizesWatches) {
  EXPECT_TRUE(is_watch_target("/api/v1/namespaces/a/pods?watch=true"));
  EXPECT_TRUE(is_watch_target("/apis/batch/v1/jobs?labelSelector=x&watch=1&resourceVersion=3"));
  EXPECT_TRUE(is_watch_target("/api/v1/watch/namespaces/a/pods"));
  EXPECT_TRUE(is_watch_target("/apis/kueue.x-k8s.io/v1beta2/watch/workloads"));
  EXPECT_FALSE(is_watch_target("/api/v1/namespaces/a/pods?watch=false"));
  EXPECT_FALSE(is_watch_target("/api/v1/namespaces/a/pods?allowWatchBookmarks=true"));
  EXPECT_FALSE(is_watch_target("/apis/kueue.x-k8s.io/v1beta2/workloads"));
  EXPECT_EQ(target_path("/a/b?c=d"), "/a/b");
}

TEST(FaultDecider, MatchesMethodPathAndWatch) {
  auto decider = FaultDecider::create(parse(R"({"rules": [
      {"fault": "status", "status": 503, "match": {"methods": ["PATCH"],
       "path": "/apis/kueue.x-k8s.io/v1beta2/namespaces/.*/workloads/.*/status"}},
      {"fault": "lag_watch", "delay_ms": 10},
      {"fault": "reset_before", "match": {"path_contains": "/configmaps", "watch": false}}]})"));
  ASSERT_TRUE(decider);
  auto& d = **decider;
  const auto status = d.decide("PATCH", "/apis/kueue.x-k8s.io/v1beta2/namespaces/t/workloads/w/status", 0ms);
  ASSERT_TRUE(status.terminal);
  EXPECT_EQ(status.terminal.index, 0u);
  EXPECT_TRUE(d.decide("PUT", "/apis/kueue.x-k8s.io/v1beta2/namespaces/t/workloads/w/status", 0ms).empty());
  EXPECT_TRUE(d.decide("PATCH", "/apis/kueue.x-k8s.io/v1beta2/namespaces/t/workloads/w", 0ms).empty());
  const auto watch = d.decide("GET", "/api/v1/configmaps?watch=true", 0ms);
  EXPECT_TRUE(watch.lag);
  EXPECT_FALSE(watch.terminal);
  const auto get = d.decide("GET", "/api/v1/namespaces/a/configmaps/x", 0ms);
  EXPECT_FALSE(get.lag);
  ASSERT_TRUE(get.terminal);
  EXPECT_EQ(get.terminal.index, 2u);
}

TEST(FaultDecider, SelectorsWindowsAndLimits) {
  auto decider = FaultDecider::create(parse(R"({"rules": [
      {"fault": "status", "status": 500, "match": {"path_contains": "/every"}, "every": 3},
      {"fault": "status", "status": 500, "match": {"path_contains": "/first"}, "first": 2},
      {"fault": "status", "status": 500, "match": {"path_contains": "/limit"}, "limit": 2},
      {"fault": "status", "status": 500, "match": {"path_contains": "/window"}, "from_s": 1, "for_s": 1}]})"));
  ASSERT_TRUE(decider);
  auto& d = **decider;
  auto fired = [&](std::string_view path, std::chrono::milliseconds at = 0ms) {
    return static_cast<bool>(d.decide("GET", path, at).terminal);
  };
  std::vector<bool> every;
  for (int i = 0; i < 6; ++i) every.push_back(fired("/every"));
  EXPECT_EQ(every, (std::vector<bool>{false, false, true, false, false, true}));
  std::vector<bool> first;
  for (int i = 0; i < 4; ++i) first.push_back(fired("/first"));
  EXPECT_EQ(first, (std::vector<bool>{true, true, false, false}));
  std::vector<bool> limit;
  for (int i = 0; i < 4; ++i) limit.push_back(fired("/limit"));
  EXPECT_EQ(limit, (std::vector<bool>{true, true, false, false}));
  EXPECT_FALSE(fired("/window", 999ms));
  EXPECT_TRUE(fired("/window", 1000ms));
  EXPECT_TRUE(fired("/window", 1999ms));
  EXPECT_FALSE(fired("/window", 2000ms));
}

TEST(FaultDecider, TheFirstTerminalWinsAndModifiersCombine) {
  auto decider = FaultDecider::create(parse(R"({"rules": [
      {"fault": "delay", "delay_ms": 5},
      {"fault": "cut_watch_after", "events": 1},
      {"fault": "lag_watch", "delay_ms": 7},
      {"fault": "watch_gone"},
      {"fault": "delay", "delay_ms": 9}]})"));
  ASSERT_TRUE(decider);
  const auto d = (*decider)->decide("GET", "/api/v1/pods?watch=1", 0ms);
  ASSERT_TRUE(d.delay && d.lag && d.terminal);
  EXPECT_EQ(d.delay.index, 0u);
  EXPECT_EQ(d.terminal.index, 1u);
  EXPECT_EQ(d.lag.index, 2u);
}

std::vector<int> draw_sequence(std::uint64_t seed, bool with_noise = false) {
  FaultPlan plan;
  plan.seed = seed;
  FaultRule noise;  // a rule matching other requests must not disturb rule 1's draws
  noise.kind = FaultKind::reset_before;
  noise.probability = 0.5;
  noise.match.path_contains = "/noise";
  FaultRule rule;
  rule.kind = FaultKind::status;
  rule.status = 503;
  rule.probability = 0.5;
  rule.match.path_contains = "/configmaps";
  plan.rules = {noise, rule};
  auto decider = FaultDecider::create(plan);
  EXPECT_TRUE(decider);
  std::vector<int> out;
  for (int i = 0; i < 64; ++i) {
    if (with_noise && i % 3 == 0) (*decider)->decide("GET", "/noise", 0ms);
    out.push_back((*decider)->decide("GET", "/api/v1/configmaps", 0ms).terminal ? 1 : 0);
  }
  return out;
}

TEST(FaultDecider, TheSameSeedGivesTheSameChoices) {
  const auto a = draw_sequence(7);
  EXPECT_EQ(a, draw_sequence(7));
  EXPECT_EQ(a, draw_sequence(7, true));
  EXPECT_NE(a, draw_sequence(8));
  int ones = 0;
  for (int v : a) ones += v;
  EXPECT_GT(ones, 10);
  EXPECT_LT(ones, 54);
}

TEST(FaultDecider, AHugePathNeverReachesTheRegex) {
  auto decider = FaultDecider::create(parse(R"({"rules": [{"fault": "reset_before", "match": {"path": "/a.*/b"}}]})"));
  ASSERT_TRUE(decider);
  const std::string huge = "/a" + std::string(60000, 'x') + "/b";
  EXPECT_TRUE((*decider)->decide("GET", huge, 0ms).empty());
  EXPECT_FALSE((*decider)->decide("GET", "/a/x/b", 0ms).empty());
}

TEST(FaultDecider, BlackoutWindows) {
  auto decider = FaultDecider::create(parse(R"({"rules": [{"fault": "blackout", "from_s": 1, "for_s": 2}]})"));
  ASSERT_TRUE(decider);
  EXPECT_FALSE((*decider)->blackout_at(999ms));
  EXPECT_EQ((*decider)->blackout_at(1000ms), std::optional<std::size_t>(0));
  EXPECT_FALSE((*decider)->blackout_at(3000ms));
  // A blackout is never chosen per request.
  EXPECT_TRUE((*decider)->decide("GET", "/api/v1/pods", 1500ms).empty());
}

TEST(KubeStatus, BodiesDecodeAsKubernetesStatus) {
  auto doc = json::parse(status_json(429, "", "slow down", 2));
  ASSERT_TRUE(doc);
  EXPECT_EQ(json::get_string(*doc, "kind"), "Status");
  EXPECT_EQ(json::get_string(*doc, "apiVersion"), "v1");
  EXPECT_EQ(json::get_string(*doc, "status"), "Failure");
  EXPECT_EQ(json::get_string(*doc, "reason"), "TooManyRequests");
  EXPECT_EQ(json::find(*doc, "code")->to_number<int>(), 429);
  EXPECT_EQ(json::find_path(*doc, {"details", "retryAfterSeconds"})->to_number<int>(), 2);
  EXPECT_EQ(status_reason_for(409), "Conflict");
  EXPECT_EQ(status_reason_for(500), "InternalError");
  EXPECT_EQ(status_reason_for(503), "ServiceUnavailable");
  EXPECT_EQ(status_reason_for(504), "Timeout");

  const std::string line = gone_watch_event_line();
  ASSERT_EQ(line.back(), '\n');
  auto event = json::parse(line);
  ASSERT_TRUE(event);
  EXPECT_EQ(json::get_string(*event, "type"), "ERROR");
  EXPECT_EQ(json::get_string(*json::find(*event, "object"), "reason"), "Expired");
  EXPECT_EQ(json::find_path(*event, {"object", "code"})->to_number<int>(), 410);
}

TEST(WatchLines, SplitsAcrossChunks) {
  WatchLineSplitter splitter;
  std::vector<std::string> lines;
  splitter.feed("{\"a\":1}\n{\"b\"", lines);
  splitter.feed(":2}\n\n{\"c\":3}", lines);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}\n", "{\"b\":2}\n", "\n"}));
  EXPECT_FALSE(WatchLineSplitter::is_event(lines[2]));
  EXPECT_TRUE(WatchLineSplitter::is_event(lines[0]));
  EXPECT_EQ(splitter.take_rest(), "{\"c\":3}");
  EXPECT_EQ(splitter.take_rest(), "");
}

TEST(FaultStats, OneJsonLine) {
  FaultProxyStats stats;
  stats.requests = 3;
  stats.faults[static_cast<std::size_t>(FaultKind::drop_answer)] = 2;
  stats.rule_faults = {2, 0};
  const std::string line = stats.json();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto doc = json::parse(line);
  ASSERT_TRUE(doc);
  EXPECT_EQ(json::find(*doc, "requests")->to_number<int>(), 3);
  EXPECT_EQ(json::find(*doc, "faults_total")->to_number<int>(), 2);
  EXPECT_EQ(json::find_path(*doc, {"faults", "drop_answer"})->to_number<int>(), 2);
  EXPECT_EQ(json::find(*doc, "rule_faults")->as_array().size(), 2u);
}

}  // namespace
}  // namespace kueuepp::faults
