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

std::optional<Rfc3339Fields> scan_rfc3339(std::string_view s) {
  Rfc3339Fields f;
  if (s.size() < 20 || !read_int(s, 0, 4, f.year) || s[4] != '-' || !read_int(s, 5, 2, f.month) ||
      s[7] != '-' || !read_int(s, 8, 2, f.day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !read_int(s, 11, 2, f.hour) || s[13] != ':' || !read_int(s, 14, 2, f.minute) || s[16] != ':' ||
      !read_int(s, 17, 2, f.second)) {
    return std::nullopt;
  }
  f.separator = s[10];
  std::size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::int64_t scale = 100000000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      f.nanos += (s[pos] - '0') * scale;  // digits past the ninth add 0
      scale /= 10;
      ++f.fraction_digits;
      ++pos;
    }
    if (f.fraction_digits == 0) return std::nullopt;
  }
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    if (!read_int(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !read_int(s, pos + 4, 2, om)) {
      return std::nullopt;
    }
    f.offset_minutes = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  return f;
}

bool Rfc3339Fields::in_range() const {
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                           std::chrono::day(static_cast<unsigned>(day))};
  return ymd.ok() && hour <= 23 && minute <= 59 && second <= 60;
}

std::chrono::sys_seconds Rfc3339Fields::utc_seconds() const {
  using namespace std::chrono;
  // Months first, so that month 0 or 13 carries into the year around it.
  const int months = year * 12 + (month - 1);
  const int y = months >= 0 ? months / 12 : (months - 11) / 12;
  const int m = months - y * 12;
  const sys_days first{std::chrono::year(y) / std::chrono::month(static_cast<unsigned>(m + 1)) / 1};
  return first + days(day - 1) + hours(hour) + minutes(minute) + seconds(second) - minutes(offset_minutes);
}

Expected<Time> parse_rfc3339(std::string_view s) {
  auto f = scan_rfc3339(s);
  if (!f || !f->in_range()) {
    return fail("time \"" + std::string(s) + "\" is not RFC 3339 (expected e.g. 2026-01-01T00:00:00Z)");
  }
  return Time(f->utc_seconds()) + std::chrono::microseconds(f->nanos / 1000);
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
