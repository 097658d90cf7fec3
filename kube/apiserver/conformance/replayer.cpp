#include "kube/apiserver/conformance/replayer.hpp"

#include <algorithm>
#include <filesystem>
#include <thread>

namespace kueuepp::kube::conformance {

namespace {

using namespace std::chrono;

std::string step_label(const TraceStep& step, const std::string& path) {
  return "step " + std::to_string(step.number) + " " + step.method + " " + path;
}

struct Attempt {
  std::optional<std::string> failure;
  json::value body;
};

Attempt attempt(const TraceStep& step, const client::HttpRequest& request, ReplayTransport& transport,
                const Captures& captures) {
  auto response = step.watch ? transport.send_watch(request) : transport.send(request);
  if (!response) return {"request failed: " + response.error().message, nullptr};
  return {check_step(step, *response, captures), body_as_json(*response)};
}

milliseconds seconds_to_ms(double seconds) {
  return milliseconds(static_cast<std::int64_t>(std::max(seconds, 0.0) * 1000.0));
}

}  // namespace

ReplayClock ReplayClock::real() {
  return {[] { return steady_clock::now(); }, [](milliseconds d) { std::this_thread::sleep_for(d); }};
}

Expected<client::HttpRequest> build_request(const TraceStep& step, const Captures& captures) {
  client::HttpRequest request;
  request.method = step.method;
  auto path = substitute_in_path(step.path, captures);
  if (!path) return unexpected(path.error());
  request.target = std::move(*path);
  request.headers.assign(step.headers.begin(), step.headers.end());
  if (const json::string* text = step.body.if_string()) {
    auto body = substitute_in_text(*text, captures);
    if (!body) return unexpected(body.error());
    request.body = std::move(*body);
  } else if (!step.body.is_null()) {
    auto body = substitute_in_json(step.body, captures);
    if (!body) return unexpected(body.error());
    request.body = json::dump(*body);
  }
  return request;
}

TraceResult replay_trace(const Trace& trace, ReplayTransport& transport, const ReplayClock& clock) {
  TraceResult result{trace.name, false, {}};
  Captures captures;
  for (const TraceStep& step : trace.steps) {
    auto request = build_request(step, captures);
    if (!request) {
      result.failure = step_label(step, step.path) + ": " + request.error().message;
      return result;
    }
    const auto start = clock.now();
    Attempt outcome = attempt(step, *request, transport, captures);
    while (outcome.failure && step.poll &&
           clock.now() - start < seconds_to_ms(step.poll->timeout_seconds)) {
      clock.sleep(seconds_to_ms(step.poll->interval_seconds));
      outcome = attempt(step, *request, transport, captures);
    }
    if (outcome.failure) {
      result.failure = step_label(step, request->target) + ": " + *outcome.failure;
      return result;
    }
    if (auto missing = apply_captures(step, outcome.body, captures)) {
      result.failure = step_label(step, request->target) + ": " + *missing;
      return result;
    }
  }
  result.passed = true;
  return result;
}

std::string format_result(const TraceResult& result) {
  if (result.passed) return "PASS " + result.name;
  return "FAIL " + result.name + ": " + result.failure;
}

Expected<std::vector<std::string>> collect_trace_files(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& entry : fs::directory_iterator(input, ec)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") {
          in_dir.push_back(entry.path().string());
        }
      }
      if (ec) return fail("cannot list " + input + ": " + ec.message());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::exists(input, ec)) {
      files.push_back(input);
    } else {
      return fail(input + ": no such file or directory");
    }
  }
  return files;
}

RunSummary run_trace_files(const std::vector<std::string>& files, ReplayTransport& transport,
                           const std::function<void(const std::string&)>& print,
                           const ReplayClock& clock) {
  RunSummary summary;
  for (const std::string& file : files) {
    auto trace = load_trace(file);
    if (!trace) {
      ++summary.failed;
      print("FAIL " + file + ": unreadable trace: " + trace.error().message);
      continue;
    }
    const TraceResult result = replay_trace(*trace, transport, clock);
    ++(result.passed ? summary.passed : summary.failed);
    print(format_result(result));
  }
  print(std::to_string(summary.passed) + " passed, " + std::to_string(summary.failed) + " failed");
  return summary;
}

}  // namespace kueuepp::kube::conformance
