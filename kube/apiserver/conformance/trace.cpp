#include "kube/apiserver/conformance/trace.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kueuepp::kube::conformance {

namespace {

std::string where(const std::string& file, std::size_t step) {
  return file + " step " + std::to_string(step);
}

Expected<std::vector<TracePath>> path_list(const json::value& step, std::string_view key, PathUse use,
                                          const std::string& at) {
  std::vector<TracePath> out;
  const json::value* list = json::find(step, key);
  if (list == nullptr || list->is_null()) return out;
  if (!list->is_array()) return fail(at + ": " + std::string(key) + " must be a list of paths");
  for (const json::value& p : list->get_array()) {
    if (!p.is_string()) return fail(at + ": " + std::string(key) + " holds a non-string path");
    auto path = parse_trace_path(p.get_string(), use);
    if (!path) return fail(at + ": " + path.error().message);
    out.push_back(std::move(*path));
  }
  return out;
}

std::optional<Assertion::Op> parse_op(std::string_view op) {
  if (op == "eq") return Assertion::Op::Eq;
  if (op == "ne") return Assertion::Op::Ne;
  if (op == "absent") return Assertion::Op::Absent;
  if (op == "present") return Assertion::Op::Present;
  if (op == "empty") return Assertion::Op::Empty;
  return std::nullopt;
}

const json::value kNoResponse = json::object();

double number_or(const json::value* v, double fallback) {
  if (v == nullptr || !v->is_number()) return fallback;
  return v->to_number<double>();
}

Expected<TraceStep> parse_step(const json::value& s, std::size_t number, const std::string& file,
                               TraceKind kind) {
  const std::string at = where(file, number);
  if (!s.is_object()) return fail(at + ": a step must be an object");
  TraceStep step;
  step.number = number;

  const json::value* request = json::find(s, "request");
  if (request == nullptr || !request->is_object()) return fail(at + ": no request");
  step.method = std::string(json::get_string(*request, "method"));
  step.path = std::string(json::get_string(*request, "path"));
  if (step.method.empty() || step.path.empty()) return fail(at + ": request needs a method and a path");
  if (const json::value* headers = json::find(*request, "headers"); headers && headers->is_object()) {
    for (const auto& [k, v] : headers->get_object()) {
      if (!v.is_string()) return fail(at + ": header " + std::string(k) + " is not a string");
      step.headers.emplace_back(std::string(k), std::string(v.get_string()));
    }
  }
  if (const json::value* body = json::find(*request, "body")) step.body = *body;
  step.watch = is_watch_path(step.path);

  const json::value* response = json::find(s, "response");
  const bool script = kind == TraceKind::Script;
  if (script && (response == nullptr || response->is_null())) response = &kNoResponse;
  if (response == nullptr || !response->is_object()) return fail(at + ": no response");
  const json::value* status = json::find(*response, "status");
  if (script && status == nullptr) {
    step.status = 0;
  } else if (status == nullptr || !status->is_int64()) {
    return fail(at + ": response.status must be an integer");
  } else {
    step.status = static_cast<int>(status->get_int64());
  }
  if (const json::value* body = json::find(*response, "body")) step.response_body = *body;
  if (const json::value* events = json::find(*response, "events")) {
    if (!events->is_array()) return fail(at + ": response.events must be a list");
    step.events = events->get_array();
  }
  if (const json::value* warnings = json::find(*response, "warnings")) {
    if (!warnings->is_array()) return fail(at + ": response.warnings must be a list");
    std::vector<std::string> texts;
    for (const json::value& w : warnings->get_array()) {
      if (!w.is_string()) return fail(at + ": a warning must be a string");
      texts.emplace_back(w.get_string());
    }
    step.warnings = std::move(texts);
  }

  if (const json::value* captures = json::find(s, "capture"); captures && captures->is_object()) {
    for (const auto& [name, p] : captures->get_object()) {
      if (!p.is_string()) return fail(at + ": capture " + std::string(name) + " needs a path");
      auto path = parse_trace_path(p.get_string(), PathUse::Exact);
      if (!path) return fail(at + ": capture " + std::string(name) + ": " + path.error().message);
      step.captures.emplace_back(std::string(name), std::move(*path));
    }
  }
  auto ignore = path_list(s, "ignore", PathUse::Ignore, at);
  if (!ignore) return unexpected(ignore.error());
  step.ignore = std::move(*ignore);
  auto contains = path_list(s, "contains", PathUse::Contains, at);
  if (!contains) return unexpected(contains.error());
  step.contains = std::move(*contains);

  if (const json::value* asserts = json::find(s, "asserts"); asserts && asserts->is_array()) {
    for (const json::value& a : asserts->get_array()) {
      Assertion assertion;
      assertion.path_text = std::string(json::get_string(a, "path"));
      auto path = parse_trace_path(assertion.path_text, PathUse::Exact);
      if (!path) return fail(at + ": assert: " + path.error().message);
      assertion.path = std::move(*path);
      auto op = parse_op(json::get_string(a, "op"));
      if (!op) return fail(at + ": assert on " + assertion.path_text + " has an unknown op");
      assertion.op = *op;
      if (const json::value* v = json::find(a, "value")) assertion.value = *v;
      step.asserts.push_back(std::move(assertion));
    }
  }
  if (const json::value* poll = json::find(s, "poll"); poll && poll->is_object()) {
    step.poll = Poll{number_or(json::find(*poll, "timeout_seconds"), 60),
                     number_or(json::find(*poll, "interval_seconds"), 0.2)};
  }
  return step;
}

}  // namespace

bool is_watch_path(std::string_view path) {
  const std::size_t q = path.find('?');
  if (q == std::string_view::npos) return false;
  std::string_view query = path.substr(q + 1);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    if (param == "watch=1" || param == "watch=true") return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

Expected<Trace> parse_trace(std::string_view text, const std::string& file, TraceKind kind) {
  auto doc = json::parse(text);
  if (!doc) return fail(file + ": not valid JSON: " + doc.error().message);
  if (!doc->is_object()) return fail(file + ": a trace must be a JSON object");
  Trace trace;
  trace.file = file;
  trace.name = std::string(json::get_string(*doc, "name"));
  if (trace.name.empty()) trace.name = std::filesystem::path(file).stem().string();
  trace.description = std::string(json::get_string(*doc, "description"));
  const json::value* steps = json::find(*doc, "steps");
  if (steps == nullptr || !steps->is_array()) return fail(file + ": no steps list");
  std::size_t number = 0;
  for (const json::value& s : steps->get_array()) {
    auto step = parse_step(s, ++number, file, kind);
    if (!step) return unexpected(step.error());
    trace.steps.push_back(std::move(*step));
  }
  return trace;
}

Expected<std::string> read_trace_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(file + ": cannot open the trace file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Expected<Trace> load_trace(const std::string& file, TraceKind kind) {
  auto text = read_trace_file(file);
  if (!text) return unexpected(text.error());
  return parse_trace(*text, file, kind);
}

}  // namespace kueuepp::kube::conformance
