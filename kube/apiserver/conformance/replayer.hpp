#pragma once

// Replays traces against a server through a ReplayTransport (README §2): placeholder
// substitution, the per-step check, poll and capture; a trace stops at its first
// failing step. The transport and the clock are injected so the engine is tested
// without a network or real waits.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/client/http_types.hpp"
#include "kube/apiserver/conformance/step_check.hpp"
#include "kube/apiserver/conformance/trace.hpp"

namespace kueuepp::kube::conformance {

class ReplayTransport {
 public:
  virtual ~ReplayTransport() = default;
  /// One request; the whole response.
  virtual Expected<ActualResponse> send(const client::HttpRequest& request) = 0;
  /// A watch request: the body as streamed until the server closes it.
  virtual Expected<ActualResponse> send_watch(const client::HttpRequest& request) = 0;
};

struct ReplayClock {
  std::function<std::chrono::steady_clock::time_point()> now;
  std::function<void(std::chrono::milliseconds)> sleep;
  static ReplayClock real();
};

struct TraceResult {
  std::string name;
  bool passed = false;
  /// `step N METHOD PATH: <first difference>`, or why the trace could not be run.
  std::string failure;
};

/// Builds the request of a step (placeholders substituted).
Expected<client::HttpRequest> build_request(const TraceStep& step, const Captures& captures);

TraceResult replay_trace(const Trace& trace, ReplayTransport& transport,
                         const ReplayClock& clock = ReplayClock::real());

/// `PASS name` or `FAIL name: ...`.
std::string format_result(const TraceResult& result);

/// The trace files named by `inputs`: files as given, directories' `*.json` sorted.
Expected<std::vector<std::string>> collect_trace_files(const std::vector<std::string>& inputs);

struct RunSummary {
  int passed = 0;
  int failed = 0;
};

/// Loads and replays each file in order, printing one line per trace and the final
/// `N passed, M failed`. An unreadable trace counts as failed.
RunSummary run_trace_files(const std::vector<std::string>& files, ReplayTransport& transport,
                           const std::function<void(const std::string&)>& print,
                           const ReplayClock& clock = ReplayClock::real());

}  // namespace kueuepp::kube::conformance
