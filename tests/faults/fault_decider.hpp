#pragma once

// Decides, request by request, which faults of a plan apply. Every rule keeps its own
// count of the requests it matched and its own random generator (std::mt19937_64 seeded
// from the plan's seed and the rule's index), so a rule's choices depend only on the
// requests it matches: the same seed and the same request sequence give the same faults.
//
// Every rule sees every request it matches (its count advances, its draw is made). Of
// the rules that pick a request, the first delay and the first lag_watch apply, together
// with the first "terminal" fault (reset_before, drop_answer, status, cut_watch_after,
// watch_gone). Blackouts are windows of time, not per request (see blackout_at). A
// watch fault picked for a watch the server does not answer 200 is not applied, but
// counts against its rule's `first` and `limit` all the same.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "tests/faults/fault_plan.hpp"

namespace kueuepp::faults {

/// Paths longer than this never match a rule's path regex: std::regex recurses once per
/// character, and a path of tens of kilobytes would overflow an io thread's stack.
/// Kubernetes paths are a few hundred bytes (the query is not part of the path).
inline constexpr std::size_t kMaxRegexPathLength = 4096;

/// True for watch requests: a `watch` query parameter that is true (true, 1, t, ...) or
/// a legacy `/watch/` path.
bool is_watch_target(std::string_view target);
/// The path of a request target (without the query).
std::string_view target_path(std::string_view target);

/// One rule picked for a request.
struct PickedRule {
  std::size_t index = 0;
  const FaultRule* rule = nullptr;
  explicit operator bool() const { return rule != nullptr; }
};

struct FaultDecision {
  PickedRule delay;     ///< wait this long, then go on
  PickedRule lag;       ///< lag_watch: hold each event line of the watch
  PickedRule terminal;  ///< reset_before, drop_answer, status, cut_watch_after, watch_gone
  bool empty() const { return !delay && !lag && !terminal; }
};

/// A blackout window, relative to the proxy start.
struct BlackoutWindow {
  std::size_t rule = 0;
  std::chrono::milliseconds from{0};
  std::optional<std::chrono::milliseconds> until;  ///< nullopt: never ends
};

class FaultDecider {
 public:
  /// Validates the plan and compiles its regexes; the error says which rule is wrong.
  static Expected<std::unique_ptr<FaultDecider>> create(FaultPlan plan);
  ~FaultDecider();

  /// Thread-safe. `since_start` is the time since the proxy started (rule windows).
  FaultDecision decide(std::string_view method, std::string_view target, std::chrono::milliseconds since_start);
  /// The blackout rule active at `since_start`, if any.
  std::optional<std::size_t> blackout_at(std::chrono::milliseconds since_start) const;
  const std::vector<BlackoutWindow>& blackouts() const { return blackouts_; }
  const FaultPlan& plan() const { return plan_; }

 private:
  struct RuleState;
  explicit FaultDecider(FaultPlan plan);

  FaultPlan plan_;
  std::vector<BlackoutWindow> blackouts_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<RuleState>> states_;
};

}  // namespace kueuepp::faults
