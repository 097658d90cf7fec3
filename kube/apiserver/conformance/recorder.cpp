#include "kube/apiserver/conformance/recorder.hpp"

#include <algorithm>

#include "kube/apiserver/conformance/asserts.hpp"
#include "kube/apiserver/conformance/normalize.hpp"

namespace kueuepp::kube::conformance {

namespace {

using namespace std::chrono;

constexpr std::string_view kManagedFields = "**.managedFields";

std::string step_label(const TraceStep& step, const std::string& path) {
  return "step " + std::to_string(step.number) + " " + step.method + " " + path;
}

// Why the answer is not yet the one a polled step waits for, or the first assert the
// real server does not meet.
std::optional<std::string> unmet(const TraceStep& step, const ActualResponse& actual,
                                 const json::value& body, const Captures& captures) {
  if (step.status != 0 && actual.status != step.status) {
    return "status " + std::to_string(actual.status) + ", the script expects " +
           std::to_string(step.status);
  }
  for (const Assertion& a : step.asserts) {
    if (auto why = check_assertion(a, body, captures)) return why;
  }
  return std::nullopt;
}

json::object recorded_response(const TraceStep& step, const ActualResponse& actual,
                               const json::value& body, ResponseNormalizer& normalizer) {
  json::object response;
  response["status"] = actual.status;
  const bool streamed = step.watch && actual.status >= 200 && actual.status < 300;
  auto events = streamed ? watch_events(actual.body) : Expected<json::array>(json::array());
  if (streamed && events) {
    json::array normalized;
    for (const json::value& e : *events) normalized.push_back(normalizer.normalize(e));
    response["events"] = std::move(normalized);
  } else {
    response["body"] = normalizer.normalize(body);
  }
  const std::vector<std::string> warnings = actual_warnings(actual.headers);
  if (!warnings.empty()) {
    json::array texts;
    for (const std::string& w : warnings) texts.emplace_back(normalizer.normalize_text(w));
    response["warnings"] = std::move(texts);
  }
  return response;
}

// The script's step with the recorded response, ignoring managedFields as every
// recorded step does.
json::object recorded_step(const json::value& script_step, json::object response) {
  json::object out = script_step.as_object();
  out["response"] = std::move(response);
  json::value& ignore = out["ignore"];
  if (!ignore.is_array()) ignore = json::array();
  json::array& list = ignore.as_array();
  const bool listed = std::any_of(list.begin(), list.end(), [](const json::value& p) {
    return p.is_string() && p.get_string() == kManagedFields;
  });
  if (!listed) list.emplace(list.begin(), kManagedFields);
  return out;
}

milliseconds seconds_to_ms(double seconds) {
  return milliseconds(static_cast<std::int64_t>(std::max(seconds, 0.0) * 1000.0));
}

}  // namespace

Expected<json::value> record_trace(std::string_view script, const std::string& file,
                                   ReplayTransport& transport, const RecordContext& context,
                                   const ReplayClock& clock) {
  auto trace = parse_trace(script, file, TraceKind::Script);
  if (!trace) return unexpected(trace.error());
  auto doc = json::parse(script);
  if (!doc) return fail(file + ": " + doc.error().message);
  const json::array& script_steps = json::find(*doc, "steps")->as_array();

  ResponseNormalizer normalizer;
  for (const TraceStep& step : trace->steps) {
    normalizer.note_trace_written(step.path);
    normalizer.note_trace_written(step.body);
  }

  json::array recorded;
  Captures captures;
  for (std::size_t i = 0; i < trace->steps.size(); ++i) {
    const TraceStep& step = trace->steps[i];
    auto request = build_request(step, captures);
    if (!request) return fail(file + " " + step_label(step, step.path) + ": " + request.error().message);

    const auto start = clock.now();
    Expected<ActualResponse> actual = fail("not sent");
    std::optional<std::string> why;
    for (;;) {
      actual = step.watch ? transport.send_watch(*request) : transport.send(*request);
      if (!actual) {
        return fail(file + " " + step_label(step, request->target) + ": " + actual.error().message);
      }
      why = unmet(step, *actual, body_as_json(*actual), captures);
      if (!why || !step.poll || clock.now() - start >= seconds_to_ms(step.poll->timeout_seconds)) break;
      clock.sleep(seconds_to_ms(step.poll->interval_seconds));
    }
    const json::value body = body_as_json(*actual);
    if (why) return fail(file + " " + step_label(step, request->target) + ": " + *why);
    if (auto missing = apply_captures(step, body, captures)) {
      return fail(file + " " + step_label(step, request->target) + ": " + *missing);
    }
    recorded.push_back(recorded_step(script_steps[i], recorded_response(step, *actual, body, normalizer)));
  }

  json::object out = doc->as_object();
  if (!context.recorded_against.empty()) {
    std::string description(json::get_string(out, "description"));
    description += (description.empty() ? "" : " ") + std::string("Recorded against ") +
                   context.recorded_against + ".";
    out["description"] = description;
  }
  if (out.if_contains("name") == nullptr) out["name"] = trace->name;
  out["steps"] = std::move(recorded);
  return json::value(std::move(out));
}

}  // namespace kueuepp::kube::conformance
