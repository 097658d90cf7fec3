#pragma once

// A fault plan: which requests the fault proxy breaks, how, and how often. A plan is a
// seed and a list of rules; each rule matches requests (method, path, watch or not),
// picks some of them (probability, every Nth, the first N; optionally only in a time
// window) and names one fault kind with its parameters. Plans are written in code or in
// a small JSON document (see parse_fault_plan) so that shell-driven tests pass one file.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::faults {

enum class FaultKind {
  reset_before,     ///< reset the client connection; the request never reaches the server
  drop_answer,      ///< forward, let the server answer, then reset instead of answering
  status,           ///< answer an error Status (409, 429, 5xx ...) without forwarding
  delay,            ///< forward after a delay
  cut_watch_after,  ///< end a watch stream cleanly after N event lines
  watch_gone,       ///< a watch answered 410 Gone, or ended by an in-stream 410 ERROR event
  lag_watch,        ///< hold every event line of a watch for a delay, in order
  blackout,         ///< during a window, reset every new connection and close the open ones
};

inline constexpr std::size_t kFaultKindCount = 8;

/// The JSON spelling of a kind, e.g. "drop_answer".
std::string_view fault_kind_name(FaultKind kind);
std::optional<FaultKind> parse_fault_kind(std::string_view name);
/// Kinds that apply to watch requests only.
bool is_watch_fault(FaultKind kind);

/// Which requests a rule considers. Every field left empty matches anything.
struct RequestMatcher {
  /// Upper-case HTTP methods; empty: any method.
  std::vector<std::string> methods;
  /// ECMAScript regex searched in the request path (the query excluded).
  std::string path_regex;
  /// Literal substring of the request path.
  std::string path_contains;
  /// true: watch requests only (watch=true/1 or a /watch/ path); false: no watches.
  std::optional<bool> watch;
};

/// How watch_gone ends a watch.
enum class WatchGoneMode {
  event,   ///< answer 200, pass `events` lines, then an ERROR event (410 Expired) and end
  answer,  ///< answer the watch request itself with 410 Gone (reason Expired)
};

struct FaultRule {
  RequestMatcher match;
  FaultKind kind = FaultKind::status;

  // -- which matching requests (at most one of probability, every, first) --------------
  /// Each matching request is picked with this probability (seeded draws).
  double probability = 1.0;
  /// Pick every Nth matching request (the Nth, 2Nth, ...); 0: unused.
  std::uint64_t every = 0;
  /// Pick the first N matching requests; 0: unused.
  std::uint64_t first = 0;
  /// Fire at most this many times; 0: no limit.
  std::uint64_t limit = 0;
  /// Active from this offset after the proxy started ...
  std::chrono::milliseconds from{0};
  /// ... for this long (nullopt: until the proxy stops).
  std::optional<std::chrono::milliseconds> duration;

  // -- parameters ---------------------------------------------------------------------
  /// status: the HTTP status answered (400..599), its Status reason (empty: the one
  /// kube-apiserver uses for the code), message (empty: says the proxy injected it) and
  /// Retry-After seconds (sent as header and details.retryAfterSeconds; 429 defaults to 1).
  int status = 0;
  std::string reason;
  std::string message;
  std::optional<int> retry_after_seconds;
  /// delay, lag_watch: how long.
  std::chrono::milliseconds delay{0};
  /// cut_watch_after: event lines passed before the stream ends; watch_gone (event
  /// mode): event lines passed before the ERROR event.
  std::uint64_t events = 0;
  WatchGoneMode gone_mode = WatchGoneMode::event;
};

struct FaultPlan {
  /// Seeds every rule's draws: the same seed and the same requests give the same faults.
  std::uint64_t seed = 0;
  std::vector<FaultRule> rules;
};

/// Checks a plan written in code: regexes compile, parameters fit their kinds. The error
/// names the rule (by index) and what to change.
Status validate_fault_plan(const FaultPlan& plan);

/// Parses and validates a JSON plan:
///   {"seed": 7, "rules": [{"match": {"methods": ["PATCH"], "path": "/status$",
///    "path_contains": "/workloads/", "watch": false}, "fault": "drop_answer",
///    "probability": 0.3, "every": 2, "first": 3, "limit": 5, "from_s": 1, "for_s": 2.5,
///    "status": 503, "reason": "...", "message": "...", "retry_after_s": 1,
///    "delay_ms": 200, "events": 3, "mode": "event"|"answer"}]}
/// Unknown keys are refused (a typo must not silently weaken a test).
Expected<FaultPlan> parse_fault_plan(std::string_view json_text);
/// Reads `path` and parses it; the error names the file.
Expected<FaultPlan> load_fault_plan(const std::string& path);

/// One line describing a rule, for the fault log (so that a log can be replayed).
std::string describe_rule(const FaultRule& rule);

}  // namespace kueuepp::faults
