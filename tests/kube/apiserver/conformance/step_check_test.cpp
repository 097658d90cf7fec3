#include "kube/apiserver/conformance/step_check.hpp"

#include <gtest/gtest.h>

#include "kube/apiserver/conformance/asserts.hpp"
#include "kube/apiserver/conformance/warnings.hpp"

namespace kueuepp::kube::conformance {
namespace {

TraceStep step_from(std::string_view json_step) {
  auto trace = parse_trace(std::string(R"({"name":"t","steps":[)") + std::string(json_step) + "]}", "t.json");
  EXPECT_TRUE(trace) << trace.error().message;
  return trace->steps.at(0);
}

ActualResponse json_response(int status, std::string body, client::Headers extra = {}) {
  ActualResponse r{status, {{"Content-Type", "application/json"}}, std::move(body)};
  for (auto& h : extra) r.headers.push_back(std::move(h));
  return r;
}

TEST(StepCheck, StatusIsComparedFirstAndExplained) {
  const TraceStep step = step_from(R"({"request":{"method":"GET","path":"/x"},"response":{"status":200,"body":{}}})");
  auto d = check_step(step, json_response(404, R"({"kind":"Status","reason":"NotFound","message":"x not found"})"), {});
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, "status: expected 200, actual 404 (NotFound: x not found)");
}

TEST(StepCheck, IgnoredPathsAreRemovedFromBothSides) {
  const TraceStep step = step_from(R"({"request":{"method":"GET","path":"/x"},
    "response":{"status":200,"body":{"metadata":{"name":"j","managedFields":[{"manager":"recorded"}]},
                                     "spec":{"selector":{"recorded":true}}}},
    "ignore":["**.managedFields","spec.selector"]})");
  EXPECT_FALSE(check_step(step, json_response(200, R"({"metadata":{"name":"j","managedFields":[{"manager":"other"}]},
                                                      "spec":{"selector":{"x":1}}})"), {}));
  auto d = check_step(step, json_response(200, R"({"metadata":{"name":"k"},"spec":{}})"), {});
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, R"(body at metadata.name: expected "j", actual "k")");
}

TEST(StepCheck, TextBodiesAndEmptyBodies) {
  const TraceStep text = step_from(R"({"request":{"method":"GET","path":"/healthz"},"response":{"status":200,"body":"ok"}})");
  EXPECT_FALSE(check_step(text, ActualResponse{200, {{"Content-Type", "text/plain; charset=utf-8"}}, "ok"}, {}));
  EXPECT_TRUE(check_step(text, ActualResponse{200, {{"Content-Type", "text/plain"}}, "nok"}, {}));
  // JSON text under a non-JSON content type is still text.
  const TraceStep obj = step_from(R"({"request":{"method":"GET","path":"/x"},"response":{"status":200,"body":{"a":1}}})");
  EXPECT_TRUE(check_step(obj, ActualResponse{200, {{"Content-Type", "text/plain"}}, R"({"a":1})"}, {}));
  const TraceStep empty = step_from(R"({"request":{"method":"GET","path":"/x"},"response":{"status":200,"body":null}})");
  EXPECT_FALSE(check_step(empty, ActualResponse{200, {}, ""}, {}));
}

TEST(StepCheck, WatchEventsDropBookmarksAndCompareInOrder) {
  const TraceStep step = step_from(R"({"request":{"method":"GET","path":"/x?watch=1&timeoutSeconds=1"},
    "response":{"status":200,"events":[
      {"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"<rv>"},"spec":{"x":1}}},
      {"type":"DELETED","object":{"metadata":{"name":"a"}}}]},
    "ignore":["object.spec"]})");
  ASSERT_TRUE(step.watch);
  const std::string stream =
      R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"},"spec":{"x":2}}})" "\n"
      R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"6"}}})" "\n"
      R"({"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"7"}}})" "\n";
  EXPECT_FALSE(check_step(step, json_response(200, stream), {}));

  auto fewer = check_step(step, json_response(200, stream.substr(0, stream.find('\n') + 1)), {});
  ASSERT_TRUE(fewer);
  EXPECT_EQ(*fewer, "events: expected 2 [ADDED DELETED], actual 1 [ADDED]");

  const std::string wrong_type =
      R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}})" "\n"
      R"({"type":"MODIFIED","object":{"metadata":{"name":"a"}}})" "\n";
  auto d = check_step(step, json_response(200, wrong_type), {});
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, R"(event 1 (DELETED) at type: expected "DELETED", actual "MODIFIED")");

  auto garbage = check_step(step, json_response(200, "{oops\n"), {});
  ASSERT_TRUE(garbage);
  EXPECT_NE(garbage->find("watch stream: line 1"), std::string::npos);
}

TEST(StepCheck, AWatchAnsweredWithAnErrorComparesTheBody) {
  const TraceStep step = step_from(R"({"request":{"method":"GET","path":"/x?watch=true&resourceVersion=1"},
    "response":{"status":410,"body":{"kind":"Status","code":410}}})");
  EXPECT_FALSE(check_step(step, json_response(410, R"({"kind":"Status","code":410,"reason":"Expired"})"), {}));
}

TEST(StepCheck, WarningsMustEachMatchADistinctHeader) {
  const TraceStep step = step_from(R"({"request":{"method":"DELETE","path":"/x"},
    "response":{"status":404,"body":{},"warnings":["child pods are preserved by default"]}})");
  EXPECT_FALSE(check_step(step, json_response(404, "{}", {{"Warning", R"(299 - "child pods are preserved by default")"}}), {}));
  auto none = check_step(step, json_response(404, "{}"), {});
  ASSERT_TRUE(none);
  EXPECT_NE(none->find("not found among the actual warnings []"), std::string::npos);
  const TraceStep two = step_from(R"({"request":{"method":"GET","path":"/x"},
    "response":{"status":200,"body":{},"warnings":["unknown field \"spec.<rv>\"","unknown field \"spec.<rv>\""]}})");
  EXPECT_TRUE(check_step(two, json_response(200, "{}", {{"Warning", R"(299 - "unknown field \"spec.foo\"")"}}), {}));
  EXPECT_FALSE(check_step(two, json_response(200, "{}", {{"Warning", R"(299 - "unknown field \"spec.foo\"")"},
                                                         {"Warning", R"(299 - "unknown field \"spec.bar\"")"}}), {}));
}

TEST(StepCheck, AssertsRunOnTheActualBodyWithPlaceholders) {
  const TraceStep step = step_from(R"({"request":{"method":"GET","path":"/x"},"response":{"status":200,"body":{}},
    "asserts":[{"path":"metadata.uid","op":"eq","value":"${uid}"},
               {"path":"metadata.resourceVersion","op":"ne","value":"${rv1}"},
               {"path":"metadata.deletionTimestamp","op":"absent"},
               {"path":"metadata.generation","op":"eq","value":2},
               {"path":"metadata.continue","op":"empty"},
               {"path":"status","op":"present"}]})");
  Captures captures{{"uid", json::value("u-1")}, {"rv1", json::value("10")}};
  EXPECT_FALSE(check_step(step, json_response(200, R"({"metadata":{"uid":"u-1","resourceVersion":"11","generation":2.0,"continue":""},"status":null})"), captures));
  auto same_rv = check_step(step, json_response(200, R"({"metadata":{"uid":"u-1","resourceVersion":"10","generation":2},"status":{}})"), captures);
  ASSERT_TRUE(same_rv);
  EXPECT_EQ(*same_rv, R"(assert metadata.resourceVersion ne "10": actual "10")");
  auto no_status = check_step(step, json_response(200, R"({"metadata":{"uid":"u-1","resourceVersion":"11","generation":2}})"), captures);
  ASSERT_TRUE(no_status);
  EXPECT_EQ(*no_status, "assert status present: nothing there");
  auto missing = check_step(step, json_response(200, R"({"metadata":{}})"), captures);
  ASSERT_TRUE(missing);
  EXPECT_EQ(*missing, R"(assert metadata.uid eq "u-1": nothing there)");
}

TEST(Asserts, EmptyCoversAbsentNullAndEmptyValues) {
  Assertion a;
  a.path_text = "v";
  a.path = *parse_trace_path("v", PathUse::Exact);
  a.op = Assertion::Op::Empty;
  for (const char* doc : {R"({})", R"({"v":null})", R"({"v":""})", R"({"v":[]})", R"({"v":{}})"}) {
    EXPECT_FALSE(check_assertion(a, *json::parse(doc), {})) << doc;
  }
  for (const char* doc : {R"({"v":0})", R"({"v":"x"})", R"({"v":[1]})", R"({"v":false})"}) {
    EXPECT_TRUE(check_assertion(a, *json::parse(doc), {})) << doc;
  }
  a.op = Assertion::Op::Ne;
  a.value = "x";
  EXPECT_TRUE(check_assertion(a, *json::parse("{}"), {}));  // ne needs the value to exist
  a.op = Assertion::Op::Eq;
  a.value = "${missing}";
  auto unknown = check_assertion(a, *json::parse(R"({"v":"x"})"), {});
  ASSERT_TRUE(unknown);
  EXPECT_NE(unknown->find("${missing}"), std::string::npos);
}

TEST(Warnings, ParsesHeaderValues) {
  EXPECT_EQ(parse_warning_header(R"(299 - "unknown field \"spec.foo\"")"),
            std::vector<std::string>{R"(unknown field "spec.foo")"});
  EXPECT_EQ(parse_warning_header(R"(299 - "a", 299 kube "b" "Wed, 21 Oct 2015 07:28:00 GMT")"),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(parse_warning_header("garbage"), std::vector<std::string>{"garbage"});
  EXPECT_EQ(parse_warning_header(R"(299 - "unterminated)"), std::vector<std::string>{R"(299 - "unterminated)"});
}

TEST(Captures, StoreTypedValuesAndFailOnMissingPaths) {
  const TraceStep step = step_from(R"({"request":{"method":"GET","path":"/x"},"response":{"status":200,"body":{}},
    "capture":{"rv":"metadata.resourceVersion","gen":"metadata.generation","label":"metadata.labels.a\\.b"}})");
  Captures captures;
  EXPECT_FALSE(apply_captures(step, *json::parse(R"({"metadata":{"resourceVersion":"7","generation":3,"labels":{"a.b":"v"}}})"), captures));
  EXPECT_EQ(captures.at("rv"), json::value("7"));
  EXPECT_EQ(captures.at("gen"), json::value(3));
  EXPECT_EQ(captures.at("label"), json::value("v"));
  auto missing = apply_captures(step, *json::parse(R"({"metadata":{}})"), captures);
  ASSERT_TRUE(missing);
  EXPECT_EQ(*missing, "capture rv: nothing at metadata.resourceVersion in the actual body");
}

}  // namespace
}  // namespace kueuepp::kube::conformance
