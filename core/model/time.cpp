#include "core/model/time.hpp"

#include <charconv>
#include <cstdio>

namespace kueuepp::core {
namespace {

bool read_int(std::string_view s, std::size_t pos, std::size_t len, int& out) {
  if (pos + len > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

}  // namespace

Expected<Time> parse_rfc3339(std::string_view s) {
  auto bad = [&] {
    return fail("time \"" + std::string(s) + "\" is not RFC 3339 (expected e.g. 2026-01-01T00:00:00Z)");
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (s.size() < 20 || !read_int(s, 0, 4, y) || s[4] != '-' || !read_int(s, 5, 2, mo) ||
      s[7] != '-' || !read_int(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !read_int(s, 11, 2, h) || s[13] != ':' || !read_int(s, 14, 2, mi) || s[16] != ':' ||
      !read_int(s, 17, 2, se)) {
    return bad();
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return bad();
  std::size_t pos = 19;
  std::int64_t micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return bad();
    for (int k = digits; k < 6; ++k) micros *= 10;
  }
  std::int64_t offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    if (!read_int(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !read_int(s, pos + 4, 2, om)) {
      return bad();
    }
    offset_minutes = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return bad();
  }
  if (pos != s.size()) return bad();
  using namespace std::chrono;
  year_month_day ymd{year(y), month(static_cast<unsigned>(mo)), day(static_cast<unsigned>(d))};
  if (!ymd.ok()) return bad();
  sys_days days(ymd);
  Time t = time_point_cast<microseconds>(days) + hours(h) + minutes(mi) + seconds(se) +
           microseconds(micros) - minutes(offset_minutes);
  return t;
}

namespace {
std::string format(Time t, bool micro) {
  using namespace std::chrono;
  auto days = floor<std::chrono::days>(t);
  year_month_day ymd(days);
  auto rest = t - days;
  auto h = duration_cast<hours>(rest);
  rest -= h;
  auto m = duration_cast<minutes>(rest);
  rest -= m;
  auto s = duration_cast<seconds>(rest);
  rest -= s;
  char buf[64];
  if (micro) {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%06lldZ", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<int>(h.count()), static_cast<int>(m.count()),
                  static_cast<int>(s.count()), static_cast<long long>(rest.count()));
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<int>(h.count()), static_cast<int>(m.count()),
                  static_cast<int>(s.count()));
  }
  return buf;
}
}  // namespace

std::string format_rfc3339(Time t) { return format(t, false); }
std::string format_rfc3339_micro(Time t) { return format(t, true); }

}  // namespace kueuepp::core
