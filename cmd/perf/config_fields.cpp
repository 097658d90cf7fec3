#include "cmd/perf/config_fields.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace kueuepp::cmd::perf {

namespace {

std::string kind_of(const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "a list";
    case boost::json::kind::object: return "a mapping";
  }
  return "a value";
}

/// Digits with YAML 1.1 `_` separators (and an optional sign) to an integer.
std::optional<std::int64_t> parse_separated_integer(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c == '_') continue;
    digits.push_back(c);
  }
  if (digits.empty() || digits.back() == '+' || digits.back() == '-') return std::nullopt;
  std::string_view d = digits;
  if (d.front() == '+') d.remove_prefix(1);
  std::int64_t out = 0;
  auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), out);
  if (ec != std::errc() || end != d.data() + d.size()) return std::nullopt;
  return out;
}

std::optional<double> parse_separated_number(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c != '_') digits.push_back(c);
  }
  if (digits.empty()) return std::nullopt;
  std::string_view d = digits;
  if (d.front() == '+') d.remove_prefix(1);
  double out = 0;
  auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), out);
  if (ec != std::errc() || end != d.data() + d.size() || !std::isfinite(out)) return std::nullopt;
  return out;
}

}  // namespace

std::string field_path(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return std::string(path) + "." + std::string(key);
}

std::string field_path(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

const json::value* member(const json::object& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->value().is_null()) return nullptr;
  return &it->value();
}

Expected<const json::object*> read_object(const json::value& v, std::string_view path) {
  static const json::object kEmpty;
  if (v.is_null()) return &kEmpty;
  if (!v.is_object()) return fail(std::string(path.empty() ? "the document" : path) + ": expected a mapping, got " + kind_of(v));
  return &v.get_object();
}

Expected<const json::array*> read_array(const json::value& v, std::string_view path) {
  static const json::array kEmpty;
  if (v.is_null()) return &kEmpty;
  if (!v.is_array()) return fail(std::string(path) + ": expected a list, got " + kind_of(v));
  return &v.get_array();
}

Status check_fields(const json::object& obj, std::string_view path, std::initializer_list<std::string_view> known,
                    std::initializer_list<std::string_view> unsupported) {
  for (const auto& kv : obj) {
    std::string_view key = kv.key();
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == key;
    if (ok) continue;
    for (std::string_view u : unsupported) {
      if (u == key) {
        return fail(field_path(path, key) + ": not supported by kueuepp perf (TAS and DRA configurations are not implemented)");
      }
    }
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return fail(field_path(path, key) + ": unknown field (known fields: " + list + ")");
  }
  return {};
}

Expected<std::int64_t> read_integer(const json::value& v, std::string_view path) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) {
    if (v.get_uint64() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return fail(std::string(path) + ": integer out of range");
    }
    return static_cast<std::int64_t>(v.get_uint64());
  }
  if (v.is_double()) {
    double d = v.get_double();
    if (std::trunc(d) == d && std::fabs(d) < 9.0e18) return static_cast<std::int64_t>(d);
    return fail(std::string(path) + ": expected an integer, got " + json::dump(v));
  }
  if (v.is_string()) {
    if (auto i = parse_separated_integer(v.get_string())) return *i;
    return fail(std::string(path) + ": expected an integer, got \"" + std::string(v.get_string()) + "\"");
  }
  return fail(std::string(path) + ": expected an integer, got " + kind_of(v));
}

Expected<double> read_number(const json::value& v, std::string_view path) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double()) return v.get_double();
  if (v.is_string()) {
    if (auto d = parse_separated_number(v.get_string())) return *d;
    return fail(std::string(path) + ": expected a number, got \"" + std::string(v.get_string()) + "\"");
  }
  return fail(std::string(path) + ": expected a number, got " + kind_of(v));
}

Expected<std::string> read_string(const json::value& v, std::string_view path) {
  if (!v.is_string()) return fail(std::string(path) + ": expected a string, got " + kind_of(v));
  if (v.get_string().empty()) return fail(std::string(path) + ": must not be empty");
  return std::string(v.get_string());
}

Expected<core::Quantity> read_quantity(const json::value& v, std::string_view path) {
  std::string text;
  if (v.is_string()) {
    text = std::string(v.get_string());
  } else if (v.is_int64() || v.is_uint64() || v.is_double()) {
    text = json::dump(v);
  } else {
    return fail(std::string(path) + ": expected a quantity, got " + kind_of(v));
  }
  auto q = core::Quantity::parse(text);
  if (!q) return fail(std::string(path) + ": " + q.error().message);
  return *q;
}

}  // namespace kueuepp::cmd::perf
