#include "tests/faults/fault_plan.hpp"

#include <array>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "kube/json/json.hpp"

namespace kueuepp::faults {

namespace {

constexpr std::array<std::string_view, kFaultKindCount> kKindNames = {
    "reset_before", "drop_answer", "status", "delay", "cut_watch_after", "watch_gone", "lag_watch", "blackout"};

std::string rule_name(std::size_t index) { return "rule " + std::to_string(index); }

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::string kind_list() {
  std::vector<std::string> names(kKindNames.begin(), kKindNames.end());
  return join(names, ", ");
}

bool is_method_token(std::string_view method) {
  if (method.empty()) return false;
  for (char c : method) {
    if (c < 'A' || c > 'Z') return false;
  }
  return true;
}

std::string format_seconds(std::chrono::milliseconds ms) {
  std::ostringstream out;
  out << static_cast<double>(ms.count()) / 1000.0 << "s";
  return out.str();
}

Status validate_rule(const FaultRule& rule, std::size_t index) {
  const std::string where = rule_name(index) + " (" + std::string(fault_kind_name(rule.kind)) + ")";
  for (const auto& method : rule.match.methods) {
    if (!is_method_token(method)) {
      return fail(where + ": method \"" + method + "\" is not an upper-case HTTP method such as PATCH");
    }
  }
  if (!rule.match.path_regex.empty()) {
    try {
      std::regex compiled(rule.match.path_regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return fail(where + ": match.path \"" + rule.match.path_regex + "\" is not a valid ECMAScript regex (" +
                  e.what() + "); escape special characters or use path_contains for a literal");
    }
  }
  if (!(rule.probability >= 0.0 && rule.probability <= 1.0)) {
    return fail(where + ": probability must be between 0 and 1");
  }
  const int selectors = (rule.probability != 1.0 ? 1 : 0) + (rule.every != 0 ? 1 : 0) + (rule.first != 0 ? 1 : 0);
  if (selectors > 1) return fail(where + ": give at most one of probability, every and first");
  if (rule.from.count() < 0) return fail(where + ": the window cannot start before the proxy (from_s >= 0)");
  if (rule.duration && rule.duration->count() <= 0) return fail(where + ": for_s must be positive");

  const bool takes_status = rule.kind == FaultKind::status;
  const bool takes_delay = rule.kind == FaultKind::delay || rule.kind == FaultKind::lag_watch;
  const bool takes_events = rule.kind == FaultKind::cut_watch_after || rule.kind == FaultKind::watch_gone;
  const bool has_status = rule.status != 0 || !rule.reason.empty() || !rule.message.empty() || rule.retry_after_seconds;
  if (!takes_status && has_status) {
    return fail(where + ": status, reason, message and retry_after_s belong to the status fault only");
  }
  if (!takes_delay && rule.delay.count() != 0) return fail(where + ": delay_ms belongs to delay and lag_watch only");
  if (!takes_events && rule.events != 0) return fail(where + ": events belongs to cut_watch_after and watch_gone only");
  if (rule.kind != FaultKind::watch_gone && rule.gone_mode != WatchGoneMode::event) {
    return fail(where + ": mode belongs to watch_gone only");
  }
  if (takes_status) {
    if (rule.status < 400 || rule.status > 599) {
      return fail(where + ": status must be an HTTP error code between 400 and 599, e.g. 409, 429, 500, 503 or 504");
    }
    if (rule.retry_after_seconds && *rule.retry_after_seconds < 0) {
      return fail(where + ": retry_after_s cannot be negative");
    }
  }
  if (takes_delay && rule.delay.count() <= 0) return fail(where + ": give a positive delay_ms");
  if (rule.kind == FaultKind::watch_gone && rule.gone_mode == WatchGoneMode::answer && rule.events != 0) {
    return fail(where + ": events applies to mode \"event\" only (mode \"answer\" refuses the watch itself)");
  }
  if (is_watch_fault(rule.kind) && rule.match.watch == false) {
    return fail(where + ": a watch fault cannot match non-watch requests; drop match.watch or set it to true");
  }
  if (rule.kind == FaultKind::blackout) {
    const auto& m = rule.match;
    if (!m.methods.empty() || !m.path_regex.empty() || !m.path_contains.empty() || m.watch) {
      return fail(where + ": a blackout affects every connection; remove match");
    }
    if (selectors != 0 || rule.limit != 0) {
      return fail(where + ": a blackout is chosen by its window only (from_s, for_s); remove probability, every, "
                          "first and limit");
    }
  }
  return {};
}

// -- JSON reading ---------------------------------------------------------------------------

std::optional<double> number(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double()) return v.get_double();
  return std::nullopt;
}

Expected<std::uint64_t> count(const json::value& v, const std::string& what) {
  if (v.is_uint64()) return v.get_uint64();
  if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
  if (v.is_double()) {
    const double d = v.get_double();
    if (d >= 0 && d <= 9.0e15 && std::floor(d) == d) return static_cast<std::uint64_t>(d);
  }
  return fail(what + " must be a non-negative integer");
}

Expected<std::chrono::milliseconds> seconds(const json::value& v, const std::string& what) {
  auto n = number(v);
  if (!n || !std::isfinite(*n) || *n < 0 || *n > 1.0e9) return fail(what + " must be a number of seconds >= 0");
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(*n * 1000.0)));
}

Expected<std::string> text(const json::value& v, const std::string& what) {
  if (!v.is_string()) return fail(what + " must be a string");
  return std::string(v.get_string());
}

Status parse_match(const json::value& v, RequestMatcher& match, const std::string& where) {
  if (!v.is_object()) return fail(where + ": match must be an object");
  for (const auto& [key, value] : v.get_object()) {
    const std::string name(key);
    if (name == "methods" || name == "method") {
      std::vector<const json::value*> items;
      if (value.is_array()) {
        for (const auto& item : value.get_array()) items.push_back(&item);
      } else {
        items.push_back(&value);
      }
      for (const auto* item : items) {
        if (!item->is_string()) return fail(where + ": match." + name + " must hold method names such as \"PATCH\"");
        std::string method(item->get_string());
        for (char& c : method) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
        match.methods.push_back(std::move(method));
      }
    } else if (name == "path") {
      auto s = text(value, where + ": match.path");
      if (!s) return unexpected(s.error());
      match.path_regex = std::move(*s);
    } else if (name == "path_contains") {
      auto s = text(value, where + ": match.path_contains");
      if (!s) return unexpected(s.error());
      match.path_contains = std::move(*s);
    } else if (name == "watch") {
      if (!value.is_bool()) return fail(where + ": match.watch must be true or false");
      match.watch = value.get_bool();
    } else {
      return fail(where + ": unknown match key \"" + name + "\" (known: methods, path, path_contains, watch)");
    }
  }
  return {};
}

Expected<FaultRule> parse_rule(const json::value& v, std::size_t index) {
  const std::string where = rule_name(index);
  if (!v.is_object()) return fail(where + ": a rule must be an object");
  const auto& o = v.get_object();
  const json::value* kind_value = json::find(o, "fault");
  if (kind_value == nullptr || !kind_value->is_string()) {
    return fail(where + ": \"fault\" is missing; name one of " + kind_list());
  }
  const std::string_view kind_name(kind_value->get_string());
  auto kind = parse_fault_kind(kind_name);
  if (!kind) return fail(where + ": unknown fault \"" + std::string(kind_name) + "\"; use one of " + kind_list());
  FaultRule rule;
  rule.kind = *kind;
  for (const auto& [key, value] : o) {
    const std::string name(key);
    const std::string what = where + ": " + name;
    if (name == "fault" || name == "comment") continue;
    if (name == "match") {
      if (auto s = parse_match(value, rule.match, where); !s) return unexpected(s.error());
    } else if (name == "probability") {
      auto n = number(value);
      if (!n) return fail(what + " must be a number between 0 and 1");
      rule.probability = *n;
    } else if (name == "every" || name == "first" || name == "limit" || name == "events") {
      auto n = count(value, what);
      if (!n) return unexpected(n.error());
      if ((name == "every" || name == "first") && *n == 0) return fail(what + " must be at least 1");
      (name == "every" ? rule.every : name == "first" ? rule.first : name == "limit" ? rule.limit : rule.events) = *n;
    } else if (name == "from_s") {
      auto s = seconds(value, what);
      if (!s) return unexpected(s.error());
      rule.from = *s;
    } else if (name == "for_s") {
      auto s = seconds(value, what);
      if (!s) return unexpected(s.error());
      rule.duration = *s;
    } else if (name == "status") {
      auto n = count(value, what);
      if (!n || *n > 999) return fail(what + " must be an HTTP status code such as 503");
      rule.status = static_cast<int>(*n);
    } else if (name == "reason" || name == "message") {
      auto s = text(value, what);
      if (!s) return unexpected(s.error());
      (name == "reason" ? rule.reason : rule.message) = std::move(*s);
    } else if (name == "retry_after_s") {
      auto n = count(value, what);
      if (!n || *n > 86400) return fail(what + " must be a whole number of seconds up to 86400");
      rule.retry_after_seconds = static_cast<int>(*n);
    } else if (name == "delay_ms") {
      auto n = count(value, what);
      if (!n || *n > 86'400'000) return fail(what + " must be a whole number of milliseconds up to a day");
      rule.delay = std::chrono::milliseconds(static_cast<std::int64_t>(*n));
    } else if (name == "mode") {
      auto s = text(value, what);
      if (!s) return unexpected(s.error());
      if (*s == "event") {
        rule.gone_mode = WatchGoneMode::event;
      } else if (*s == "answer") {
        rule.gone_mode = WatchGoneMode::answer;
      } else {
        return fail(what + " must be \"event\" (in-stream ERROR event) or \"answer\" (410 answer)");
      }
    } else {
      return fail(where + ": unknown key \"" + name +
                  "\" (known: match, fault, probability, every, first, limit, from_s, for_s, status, reason, "
                  "message, retry_after_s, delay_ms, events, mode, comment)");
    }
  }
  return rule;
}

}  // namespace

std::string_view fault_kind_name(FaultKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  return i < kKindNames.size() ? kKindNames[i] : "unknown";
}

std::optional<FaultKind> parse_fault_kind(std::string_view name) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<FaultKind>(i);
  }
  return std::nullopt;
}

bool is_watch_fault(FaultKind kind) {
  return kind == FaultKind::cut_watch_after || kind == FaultKind::watch_gone || kind == FaultKind::lag_watch;
}

Status validate_fault_plan(const FaultPlan& plan) {
  for (std::size_t i = 0; i < plan.rules.size(); ++i) {
    if (auto s = validate_rule(plan.rules[i], i); !s) return s;
  }
  return {};
}

Expected<FaultPlan> parse_fault_plan(std::string_view json_text) {
  auto doc = json::parse(json_text);
  if (!doc) return fail("fault plan is not valid JSON: " + doc.error().message);
  if (!doc->is_object()) return fail("fault plan must be a JSON object such as {\"seed\": 1, \"rules\": [...]}");
  FaultPlan plan;
  for (const auto& [key, value] : doc->get_object()) {
    const std::string name(key);
    if (name == "seed") {
      auto n = count(value, "seed");
      if (!n) return unexpected(n.error());
      plan.seed = *n;
    } else if (name == "rules") {
      if (!value.is_array()) return fail("rules must be an array of rules");
      for (const auto& item : value.get_array()) {
        auto rule = parse_rule(item, plan.rules.size());
        if (!rule) return unexpected(rule.error());
        plan.rules.push_back(std::move(*rule));
      }
    } else if (name != "comment") {
      return fail("fault plan: unknown key \"" + name + "\" (known: seed, rules, comment)");
    }
  }
  if (auto s = validate_fault_plan(plan); !s) return unexpected(s.error());
  return plan;
}

Expected<FaultPlan> load_fault_plan(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read fault plan " + path + ": check the path and its permissions");
  std::ostringstream content;
  content << in.rdbuf();
  auto plan = parse_fault_plan(content.str());
  if (!plan) return fail(path + ": " + plan.error().message);
  return plan;
}

std::string describe_rule(const FaultRule& rule) {
  std::string out(fault_kind_name(rule.kind));
  const auto& m = rule.match;
  if (!m.methods.empty()) out += " methods=" + join(m.methods, ",");
  if (!m.path_regex.empty()) out += " path~" + m.path_regex;
  if (!m.path_contains.empty()) out += " path*=" + m.path_contains;
  if (m.watch) out += *m.watch ? " watch" : " not-watch";
  if (rule.every != 0) out += " every=" + std::to_string(rule.every);
  if (rule.first != 0) out += " first=" + std::to_string(rule.first);
  if (rule.probability != 1.0) {
    std::ostringstream p;
    p << rule.probability;
    out += " probability=" + p.str();
  }
  if (rule.limit != 0) out += " limit=" + std::to_string(rule.limit);
  if (rule.from.count() != 0 || rule.duration) {
    out += " window=" + format_seconds(rule.from) + "+" + (rule.duration ? format_seconds(*rule.duration) : "inf");
  }
  if (rule.kind == FaultKind::status) {
    out += " status=" + std::to_string(rule.status);
    if (!rule.reason.empty()) out += " reason=" + rule.reason;
    if (rule.retry_after_seconds) out += " retry_after=" + std::to_string(*rule.retry_after_seconds) + "s";
  }
  if (rule.delay.count() != 0) out += " delay=" + std::to_string(rule.delay.count()) + "ms";
  if (rule.kind == FaultKind::cut_watch_after || (rule.kind == FaultKind::watch_gone &&
                                                   rule.gone_mode == WatchGoneMode::event)) {
    out += " events=" + std::to_string(rule.events);
  }
  if (rule.kind == FaultKind::watch_gone) {
    out += rule.gone_mode == WatchGoneMode::event ? " mode=event" : " mode=answer";
  }
  return out;
}

}  // namespace kueuepp::faults
