#include "core/model/time.hpp"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>

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
  const int year = static_cast<int>(ymd.year());
  char buf[64];
  if (year < 0 || year > 9999) {  // out of RFC 3339's range: printed as it comes
    std::snprintf(buf, sizeof buf, "%d-%02u-%02uT%02d:%02d:%02d", year, static_cast<unsigned>(ymd.month()),
                  static_cast<unsigned>(ymd.day()), static_cast<int>(h.count()), static_cast<int>(m.count()),
                  static_cast<int>(s.count()));
    std::string out(buf);
    if (micro) out += "." + std::to_string(1000000 + rest.count()).substr(1);
    return out + "Z";
  }
  // By hand: every status write and Event carries a few timestamps, and snprintf's
  // format parsing was most of their formatting.
  auto put = [](char* at, long long value, int width) {
    for (int i = width - 1; i >= 0; --i, value /= 10) at[i] = static_cast<char>('0' + value % 10);
  };
  std::memcpy(buf, "0000-00-00T00:00:00", 19);
  put(buf, year, 4);
  put(buf + 5, static_cast<unsigned>(ymd.month()), 2);
  put(buf + 8, static_cast<unsigned>(ymd.day()), 2);
  put(buf + 11, h.count(), 2);
  put(buf + 14, m.count(), 2);
  put(buf + 17, s.count(), 2);
  std::size_t n = 19;
  if (micro) {
    buf[n++] = '.';
    put(buf + n, rest.count(), 6);
    n += 6;
  }
  buf[n++] = 'Z';
  return std::string(buf, n);
}
}  // namespace

std::string format_rfc3339(Time t) { return format(t, false); }
std::string format_rfc3339_micro(Time t) { return format(t, true); }

}  // namespace kueuepp::core
