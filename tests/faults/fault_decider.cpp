#include "tests/faults/fault_decider.hpp"

#include <algorithm>
#include <random>
#include <regex>
#include <string>

namespace kueuepp::faults {

struct FaultDecider::RuleState {
  std::optional<std::regex> path;
  std::mt19937_64 random;
  std::uint64_t matched = 0;
  std::uint64_t fired = 0;
};

namespace {

/// Go's strconv.ParseBool, which kube-apiserver uses for query booleans.
bool parse_bool_true(std::string_view v) {
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True";
}

bool in_window(const FaultRule& rule, std::chrono::milliseconds at) {
  if (at < rule.from) return false;
  return !rule.duration || at < rule.from + *rule.duration;
}

/// A uniform draw in [0, 1) from the top 53 bits, the same on every standard library
/// (std::uniform_real_distribution is not specified bit for bit).
double unit_draw(std::mt19937_64& random) { return static_cast<double>(random() >> 11) * 0x1.0p-53; }

std::mt19937_64 rule_random(std::uint64_t seed, std::size_t index) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(index), 0x6b756575u};
  return std::mt19937_64(seq);
}

}  // namespace

std::string_view target_path(std::string_view target) {
  const auto q = target.find('?');
  return q == std::string_view::npos ? target : target.substr(0, q);
}

bool is_watch_target(std::string_view target) {
  const std::string_view path = target_path(target);
  if (path.starts_with("/api/v1/watch/") || path == "/api/v1/watch") return true;
  if (path.starts_with("/apis/")) {
    // /apis/GROUP/VERSION/watch/...
    std::size_t pos = 6;
    for (int segment = 0; segment < 2 && pos != std::string_view::npos; ++segment) {
      pos = path.find('/', pos);
      if (pos != std::string_view::npos) ++pos;
    }
    if (pos != std::string_view::npos && path.substr(pos).starts_with("watch/")) return true;
  }
  if (path.size() == target.size()) return false;
  std::string_view query = target.substr(path.size() + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (pair.starts_with("watch=") && parse_bool_true(pair.substr(6))) return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

FaultDecider::FaultDecider(FaultPlan plan) : plan_(std::move(plan)) {}

FaultDecider::~FaultDecider() = default;

Expected<std::unique_ptr<FaultDecider>> FaultDecider::create(FaultPlan plan) {
  if (auto s = validate_fault_plan(plan); !s) return unexpected(s.error());
  std::unique_ptr<FaultDecider> decider(new FaultDecider(std::move(plan)));
  const auto& rules = decider->plan_.rules;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    auto state = std::make_unique<RuleState>();
    if (!rules[i].match.path_regex.empty()) state->path.emplace(rules[i].match.path_regex, std::regex::ECMAScript);
    state->random = rule_random(decider->plan_.seed, i);
    decider->states_.push_back(std::move(state));
    if (rules[i].kind == FaultKind::blackout) {
      BlackoutWindow window{i, rules[i].from, std::nullopt};
      if (rules[i].duration) window.until = rules[i].from + *rules[i].duration;
      decider->blackouts_.push_back(window);
    }
  }
  return decider;
}

std::optional<std::size_t> FaultDecider::blackout_at(std::chrono::milliseconds since_start) const {
  for (const auto& window : blackouts_) {
    if (since_start >= window.from && (!window.until || since_start < *window.until)) return window.rule;
  }
  return std::nullopt;
}

FaultDecision FaultDecider::decide(std::string_view method, std::string_view target,
                                   std::chrono::milliseconds since_start) {
  const std::string_view path = target_path(target);
  const bool watch = is_watch_target(target);
  FaultDecision decision;
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < plan_.rules.size(); ++i) {
    const FaultRule& rule = plan_.rules[i];
    RuleState& state = *states_[i];
    if (rule.kind == FaultKind::blackout) continue;
    const auto& m = rule.match;
    if (!m.methods.empty() && std::find(m.methods.begin(), m.methods.end(), method) == m.methods.end()) continue;
    if (m.watch && *m.watch != watch) continue;
    if (is_watch_fault(rule.kind) && !watch) continue;
    if (!m.path_contains.empty() && path.find(m.path_contains) == std::string_view::npos) continue;
    if (state.path) {
      if (path.size() > kMaxRegexPathLength || !std::regex_search(path.begin(), path.end(), *state.path)) continue;
    }
    if (!in_window(rule, since_start)) continue;

    const std::uint64_t n = ++state.matched;
    bool picked;
    if (rule.every != 0) {
      picked = n % rule.every == 0;
    } else if (rule.first != 0) {
      picked = n <= rule.first;
    } else if (rule.probability >= 1.0) {
      picked = true;
    } else if (rule.probability <= 0.0) {
      picked = false;
    } else {
      picked = unit_draw(state.random) < rule.probability;
    }
    if (!picked || (rule.limit != 0 && state.fired >= rule.limit)) continue;

    PickedRule* slot = rule.kind == FaultKind::delay       ? &decision.delay
                       : rule.kind == FaultKind::lag_watch ? &decision.lag
                                                           : &decision.terminal;
    if (*slot) continue;
    *slot = PickedRule{i, &rule};
    ++state.fired;
  }
  return decision;
}

}  // namespace kueuepp::faults
