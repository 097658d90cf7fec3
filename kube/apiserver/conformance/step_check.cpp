#include "kube/apiserver/conformance/step_check.hpp"

#include "kube/client/watch_event.hpp"
#include "kube/apiserver/conformance/asserts.hpp"
#include "kube/apiserver/conformance/subset_match.hpp"
#include "kube/apiserver/conformance/warnings.hpp"

namespace kueuepp::kube::conformance {

namespace {

bool json_content_type(const client::Headers& headers) {
  auto type = client::find_header(headers, "Content-Type");
  if (!type) return false;
  const std::string_view media = type->substr(0, type->find(';'));
  return media.find("json") != std::string_view::npos;
}

std::string status_message(int expected, const ActualResponse& actual, const json::value& body) {
  std::string out = "status: expected " + std::to_string(expected) + ", actual " +
                    std::to_string(actual.status);
  if (json::get_string(body, "kind") == "Status") {
    out += " (" + std::string(json::get_string(body, "reason")) + ": " +
           std::string(json::get_string(body, "message")) + ")";
  } else if (!body.is_null()) {
    out += " (" + excerpt(body, 120) + ")";
  }
  return out;
}

void apply_ignores(json::value& v, const std::vector<TracePath>& ignore) {
  for (const TracePath& p : ignore) remove_matching(v, p);
}

std::string event_types(const json::array& events) {
  std::string out;
  for (const json::value& e : events) {
    out += (out.empty() ? "" : " ") + std::string(json::get_string(e, "type"));
  }
  return "[" + out + "]";
}

std::optional<std::string> check_events(const TraceStep& step, const ActualResponse& actual) {
  auto events = watch_events(actual.body);
  if (!events) return "watch stream: " + events.error().message;
  json::array recorded = *step.events;
  json::array got = std::move(*events);
  for (json::value& e : recorded) apply_ignores(e, step.ignore);
  for (json::value& e : got) apply_ignores(e, step.ignore);
  if (recorded.size() != got.size()) {
    return "events: expected " + std::to_string(recorded.size()) + " " + event_types(*step.events) +
           ", actual " + std::to_string(got.size()) + " " + event_types(got);
  }
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    if (auto d = first_difference(recorded[i], got[i], step.contains)) {
      return "event " + std::to_string(i) + " (" + std::string(json::get_string(recorded[i], "type")) +
             ") at " + d->str();
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> actual_warnings(const client::Headers& headers) {
  std::vector<std::string> texts;
  for (std::string_view value : client::find_headers(headers, "Warning")) {
    for (std::string& t : parse_warning_header(value)) texts.push_back(std::move(t));
  }
  return texts;
}

json::value body_as_json(const ActualResponse& response) {
  if (response.body.empty()) return nullptr;
  if (json_content_type(response.headers)) {
    if (auto parsed = json::parse(response.body)) return std::move(*parsed);
  }
  return json::string(response.body);
}

Expected<json::array> watch_events(std::string_view body) {
  client::WatchStreamDecoder decoder;
  json::array events;
  std::optional<std::string> error;
  std::size_t line = 0;
  auto sink = [&](Expected<client::WatchEvent> event) {
    ++line;
    if (error) return;
    if (!event) {
      error = "line " + std::to_string(line) + ": " + event.error().message;
      return;
    }
    if (event->type == client::WatchEventType::Bookmark) return;
    json::object e;
    e["type"] = client::to_string(event->type);
    e["object"] = std::move(event->object);
    events.push_back(std::move(e));
  };
  decoder.feed(body, sink);
  decoder.finish(sink);
  if (error) return fail(*error);
  return events;
}

std::optional<std::string> check_step(const TraceStep& step, const ActualResponse& actual,
                                      const Captures& captures) {
  const json::value body = body_as_json(actual);
  if (actual.status != step.status) return status_message(step.status, actual, body);

  if (step.events && actual.status >= 200 && actual.status < 300) {
    if (auto d = check_events(step, actual)) return d;
  } else if (step.response_body) {
    json::value recorded = *step.response_body;
    json::value got = body;
    apply_ignores(recorded, step.ignore);
    apply_ignores(got, step.ignore);
    if (auto d = first_difference(recorded, got, step.contains)) return "body at " + d->str();
  }

  if (step.warnings) {
    if (auto d = match_warnings(*step.warnings, actual_warnings(actual.headers))) return d;
  }
  for (const Assertion& a : step.asserts) {
    if (auto d = check_assertion(a, body, captures)) return d;
  }
  return std::nullopt;
}

std::optional<std::string> apply_captures(const TraceStep& step, const json::value& body,
                                          Captures& captures) {
  for (const auto& [name, path] : step.captures) {
    const json::value* v = lookup(body, path);
    if (v == nullptr) {
      std::vector<std::string> keys;
      for (const PathSegment& s : path) keys.push_back(s.key);
      return "capture " + name + ": nothing at " + render_path(keys) + " in the actual body";
    }
    captures[name] = *v;
  }
  return std::nullopt;
}

}  // namespace kueuepp::kube::conformance
