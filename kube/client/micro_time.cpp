#include "kube/client/micro_time.hpp"

#include <charconv>
#include <cstdio>

namespace kueuepp::kube::client {

namespace {

using namespace std::chrono;

std::string format(TimePoint t, bool micros) {
  const auto us = floor<microseconds>(t);
  const auto day = floor<days>(us);
  const year_month_day ymd{day};
  const hh_mm_ss hms{us - day};
  char buf[64];
  if (micros) {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%06lldZ",
                  static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                  static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                  static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()),
                  static_cast<long long>(hms.subseconds().count()));
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                  static_cast<int>(hms.seconds().count()));
  }
  return buf;
}

bool read_int(std::string_view& text, std::size_t digits, int& out) {
  if (text.size() < digits) return false;
  for (std::size_t i = 0; i < digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  std::from_chars(text.data(), text.data() + digits, out);
  text.remove_prefix(digits);
  return true;
}

bool expect(std::string_view& text, char c) {
  if (text.empty() || text.front() != c) return false;
  text.remove_prefix(1);
  return true;
}

}  // namespace

std::string format_time(TimePoint t) { return format(t, false); }
std::string format_micro_time(TimePoint t) { return format(t, true); }

std::optional<TimePoint> parse_time(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!read_int(text, 4, y) || !expect(text, '-') || !read_int(text, 2, mo) ||
      !expect(text, '-') || !read_int(text, 2, d)) {
    return std::nullopt;
  }
  if (text.empty() || (text.front() != 'T' && text.front() != 't')) return std::nullopt;
  text.remove_prefix(1);
  if (!read_int(text, 2, h) || !expect(text, ':') || !read_int(text, 2, mi) ||
      !expect(text, ':') || !read_int(text, 2, s)) {
    return std::nullopt;
  }
  nanoseconds fraction{0};
  if (!text.empty() && text.front() == '.') {
    text.remove_prefix(1);
    std::int64_t scale = 100000000;
    std::size_t n = 0;
    while (n < text.size() && text[n] >= '0' && text[n] <= '9') {
      fraction += nanoseconds((text[n] - '0') * scale);
      scale /= 10;
      ++n;
    }
    if (n == 0) return std::nullopt;
    text.remove_prefix(n);
  }
  minutes offset{0};
  if (text == "Z" || text == "z") {
    text.remove_prefix(1);
  } else if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    const int sign = text.front() == '-' ? -1 : 1;
    text.remove_prefix(1);
    int oh = 0, om = 0;
    if (!read_int(text, 2, oh) || !expect(text, ':') || !read_int(text, 2, om)) return std::nullopt;
    offset = minutes(sign * (oh * 60 + om));
  } else {
    return std::nullopt;
  }
  if (!text.empty()) return std::nullopt;
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || s > 60) return std::nullopt;
  // In seconds first: system_clock's nanosecond time points only span 1678–2261, and
  // an out-of-range time must be rejected, not wrapped around.
  const sys_seconds utc = sys_days{ymd} + hours{h} + minutes{mi} + seconds{s} - offset;
  const auto earliest = ceil<seconds>(system_clock::time_point::min()) + seconds{1};
  const auto latest = floor<seconds>(system_clock::time_point::max()) - seconds{1};
  if (utc < earliest || utc > latest) return std::nullopt;
  return time_point_cast<system_clock::duration>(utc) +
         duration_cast<system_clock::duration>(fraction);
}

}  // namespace kueuepp::kube::client
