#include "kube/apiserver/schema/formats.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "core/base64.hpp"
#include "kube/apiserver/schema/regex.hpp"

namespace kueuepp::kube::schema {
namespace {

// go-openapi normalizes format names by dropping dashes ("date-time" -> "datetime").
std::string normalized(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != '-') out += c;
  }
  return out;
}

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int number(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// Go's time.Parse("2006-01-02", s): four-digit year, two-digit month and day, and the
// day must exist in that month.
bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  if (!digits(s.substr(0, 4)) || !digits(s.substr(5, 2)) || !digits(s.substr(8, 2))) return false;
  int year = number(s.substr(0, 4));
  int month = number(s.substr(5, 2));
  int day = number(s.substr(8, 2));
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr std::array<int, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  int max = days[month - 1] + (month == 2 && leap ? 1 : 0);
  return day <= max;
}

// strfmt.IsDateTime: split on the first two 't'/'T' (case-insensitively), a valid date
// before the first and `HH:MM:SS(.frac)?(z|±hh:mm)` between them, with hour <= 23 and
// minute, second <= 59. (Hand-written: it runs for every timestamp of every object.)
// Not core::scan_rfc3339 (core/model/time.hpp), on purpose: go-openapi's grammar accepts
// a different set, which this keeps exactly. It takes any one character before the
// fraction ("10:00:00,5Z"), ignores whatever follows a second 'T' ("...ZTjunk"), and
// refuses second 60; core reads RFC 3339 itself.
bool is_date_time(std::string_view str) {
  if (str.size() < 4) return false;
  auto is_t = [](char c) { return c == 't' || c == 'T'; };
  std::size_t t1 = 0;
  while (t1 < str.size() && !is_t(str[t1])) ++t1;
  if (t1 == str.size() || !is_date(str.substr(0, t1))) return false;
  std::size_t t2 = t1 + 1;
  while (t2 < str.size() && !is_t(str[t2])) ++t2;
  std::string_view time = str.substr(t1 + 1, t2 - t1 - 1);
  auto two_digits = [&](std::size_t at) { return at + 2 <= time.size() && digits(time.substr(at, 2)); };
  if (!two_digits(0) || time.size() < 8 || time[2] != ':' || !two_digits(3) || time[5] != ':' || !two_digits(6)) {
    return false;
  }
  auto zone_at = [&](std::size_t at) {
    std::string_view zone = time.substr(std::min(at, time.size()));
    return zone == "z" || zone == "Z" ||
           (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && digits(zone.substr(1, 2)) && zone[3] == ':' &&
            digits(zone.substr(4, 2)));
  };
  // `(.[0-9]+)?`: optionally any one character but a newline, then digits (greedy is
  // enough: the zone never starts with a digit).
  bool ok = zone_at(8);
  if (!ok && time.size() > 9 && time[8] != '\n' && time[9] >= '0' && time[9] <= '9') {
    std::size_t i = 10;
    while (i < time.size() && time[i] >= '0' && time[i] <= '9') ++i;
    ok = zone_at(i);
  }
  if (!ok) return false;
  return time.substr(0, 2) <= "23" && time.substr(3, 2) <= "59" && time.substr(6, 2) <= "59";
}

bool matches(const char* pattern, std::string_view s) {
  auto re = Regex::compile(pattern);
  return re && re->search(s);
}

bool is_ipv4(std::string_view s) {
  int parts = 0;
  std::size_t i = 0;
  while (true) {
    std::size_t dot = s.find('.', i);
    std::string_view part = s.substr(i, dot == std::string_view::npos ? std::string_view::npos : dot - i);
    if (!digits(part) || part.size() > 3 || (part.size() > 1 && part[0] == '0') || number(part) > 255) {
      return false;
    }
    ++parts;
    if (dot == std::string_view::npos) break;
    i = dot + 1;
  }
  return parts == 4;
}

}  // namespace

Format parse_format(std::string_view name) {
  std::string n = normalized(name);
  if (n == "datetime") return Format::DateTime;
  if (n == "date") return Format::Date;
  if (n == "byte") return Format::Byte;
  if (n == "uuid") return Format::Uuid;
  if (n == "uuid3") return Format::Uuid3;
  if (n == "uuid4") return Format::Uuid4;
  if (n == "uuid5") return Format::Uuid5;
  if (n == "ipv4") return Format::Ipv4;
  if (n == "password") return Format::Password;
  static constexpr std::array<std::string_view, 15> unchecked = {
      "bsonobjectid", "uri",  "email",      "hostname", "ipv6",     "cidr",     "mac",     "isbn",
      "isbn10",       "isbn13", "creditcard", "ssn",      "hexcolor", "rgbcolor", "duration"};
  if (std::find(unchecked.begin(), unchecked.end(), n) != unchecked.end()) return Format::Unchecked;
  return Format::None;
}

bool format_valid(Format format, std::string_view s) {
  switch (format) {
    case Format::DateTime:
      return is_date_time(s);
    case Format::Date:
      return is_date(s);
    case Format::Byte:
      // go-openapi's `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$`
      // accepts exactly the padded standard base64 core decodes, but not the empty string.
      return !s.empty() && !core::base64_error_at(s).has_value();
    case Format::Uuid:
      return matches(R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$)", s);
    case Format::Uuid3:
      return matches(R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$)", s);
    case Format::Uuid4:
      return matches(R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$)", s);
    case Format::Uuid5:
      return matches(R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$)", s);
    case Format::Ipv4:
      return is_ipv4(s);
    case Format::None:
    case Format::Password:
    case Format::Unchecked:
      return true;
  }
  return true;
}

}  // namespace kueuepp::kube::schema
