#include "kube/apiserver/server/util/time.hpp"

#include <cctype>
#include <ctime>
#include <limits>

#include <fmt/format.h>

namespace kueuepp::kube::server {

namespace {

std::tm utc_tm(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n) {
  if (pos + n > s.size()) return false;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i])) == 0) return false;
  }
  return true;
}

/// "YYYY-MM-DDTHH:MM:SS" at the start of `s`.
bool date_time_prefix(std::string_view s) {
  return s.size() >= 19 && digits(s, 0, 4) && s[4] == '-' && digits(s, 5, 2) && s[7] == '-' &&
         digits(s, 8, 2) && (s[10] == 'T' || s[10] == 't') && digits(s, 11, 2) && s[13] == ':' &&
         digits(s, 14, 2) && s[16] == ':' && digits(s, 17, 2);
}

/// "Z" or "+HH:MM" / "-HH:MM" exactly.
bool zone(std::string_view s) {
  if (s == "Z" || s == "z") return true;
  return s.size() == 6 && (s[0] == '+' || s[0] == '-') && digits(s, 1, 2) && s[3] == ':' &&
         digits(s, 4, 2);
}

}  // namespace

std::string format_rfc3339(std::chrono::system_clock::time_point t) {
  std::tm tm = utc_tm(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string now_rfc3339() {
  // Every write asks (creationTimestamp, managedFields times) and the text changes once
  // a second: format it once per second and thread.
  thread_local std::int64_t cached_second = std::numeric_limits<std::int64_t>::min();
  thread_local std::string cached;
  auto now = std::chrono::system_clock::now();
  std::int64_t second = std::chrono::floor<std::chrono::seconds>(now).time_since_epoch().count();
  if (second != cached_second) {
    cached = format_rfc3339(now);
    cached_second = second;
  }
  return cached;
}

std::string now_micro_time() {
  auto now = std::chrono::system_clock::now();
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
                1000000;
  std::string base = format_rfc3339(now);
  base.pop_back();  // 'Z'
  return fmt::format("{}.{:06}Z", base, micros);
}

bool is_rfc3339(std::string_view text) {
  if (!date_time_prefix(text)) return false;
  std::size_t pos = 19;
  if (pos < text.size() && text[pos] == '.') {
    std::size_t start = ++pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) != 0) ++pos;
    if (pos == start) return false;
  }
  return zone(text.substr(pos));
}

bool is_micro_time(std::string_view text) {
  return date_time_prefix(text) && text.size() > 26 && text[19] == '.' && digits(text, 20, 6) &&
         zone(text.substr(26));
}

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  if (!is_rfc3339(text)) return std::nullopt;
  auto num = [&](std::size_t pos, std::size_t n) {
    int v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) v = v * 10 + (text[i] - '0');
    return v;
  };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(5, 2) - 1;
  tm.tm_mday = num(8, 2);
  tm.tm_hour = num(11, 2);
  tm.tm_min = num(14, 2);
  tm.tm_sec = num(17, 2);
  std::time_t secs = timegm(&tm);
  std::size_t pos = 19;
  long long micros = 0;
  if (text[pos] == '.') {
    ++pos;
    int digits_seen = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) != 0) {
      if (digits_seen < 6) {
        micros = micros * 10 + (text[pos] - '0');
        ++digits_seen;
      }
      ++pos;
    }
    while (digits_seen++ < 6) micros *= 10;
  }
  std::string_view z = text.substr(pos);
  if (z != "Z" && z != "z") {
    int offset = (num(pos + 1, 2) * 60 + num(pos + 4, 2)) * 60;
    secs -= z[0] == '+' ? offset : -offset;
  }
  return std::chrono::system_clock::from_time_t(secs) + std::chrono::microseconds(micros);
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
