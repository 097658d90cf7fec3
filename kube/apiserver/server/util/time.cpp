#include "kube/apiserver/server/util/time.hpp"

#include <limits>

#include <fmt/format.h>

#include "core/model/time.hpp"

namespace kueuepp::kube::server {

namespace {

using std::chrono::floor;
using std::chrono::microseconds;

/// The fields of an RFC 3339 timestamp with a `T` (or `t`), as Go's layout has it.
std::optional<core::Rfc3339Fields> scan(std::string_view text) {
  auto f = core::scan_rfc3339(text);
  if (!f || f->separator == ' ') return std::nullopt;
  return f;
}

}  // namespace

std::string now_rfc3339() {
  // Every write asks (creationTimestamp, managedFields times) and the text changes once
  // a second: format it once per second and thread.
  thread_local std::int64_t cached_second = std::numeric_limits<std::int64_t>::min();
  thread_local std::string cached;
  auto now = std::chrono::system_clock::now();
  std::int64_t second = floor<std::chrono::seconds>(now).time_since_epoch().count();
  if (second != cached_second) {
    cached = core::format_rfc3339(floor<microseconds>(now));
    cached_second = second;
  }
  return cached;
}

std::string now_micro_time() {
  return core::format_rfc3339_micro(floor<microseconds>(std::chrono::system_clock::now()));
}

bool is_micro_time(std::string_view text) {
  auto f = scan(text);
  return f && f->fraction_digits == 6;
}

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  auto f = scan(text);
  if (!f) return std::nullopt;
  return std::chrono::system_clock::time_point(f->utc_seconds()) + microseconds(f->nanos / 1000);
}

std::string human_duration(std::chrono::seconds d) {
  long long seconds = d.count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return fmt::format("{}s", seconds);
  long long minutes = seconds / 60;
  if (minutes < 10) {
    long long s = seconds % 60;
    return s == 0 ? fmt::format("{}m", minutes) : fmt::format("{}m{}s", minutes, s);
  }
  if (minutes < 180) return fmt::format("{}m", minutes);
  long long hours = minutes / 60;
  if (hours < 8) {
    long long m = minutes % 60;
    return m == 0 ? fmt::format("{}h", hours) : fmt::format("{}h{}m", hours, m);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24 * 8) {
    long long h = hours % 24;
    return h == 0 ? fmt::format("{}d", hours / 24) : fmt::format("{}d{}h", hours / 24, h);
  }
  if (hours < 24 * 365 * 2) return fmt::format("{}d", hours / 24);
  if (hours < 24 * 365 * 8) {
    long long dy = (hours / 24) % 365;
    return dy == 0 ? fmt::format("{}y", hours / 24 / 365) : fmt::format("{}y{}d", hours / 24 / 365, dy);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

}  // namespace kueuepp::kube::server
