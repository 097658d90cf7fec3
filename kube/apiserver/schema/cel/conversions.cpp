// size(), type(), dyn() and the type conversions int() uint() double() string() bytes()
// bool(), with cel-go's range checks.

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "kube/apiserver/schema/cel/errors.hpp"
#include "kube/apiserver/schema/cel/functions.hpp"
#include "kube/apiserver/schema/utf8.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

constexpr double kTwoTo63 = 9223372036854775808.0;
constexpr double kTwoTo64 = 18446744073709551616.0;

Value conversion_error(std::string_view from, std::string_view to) {
  return Value::error("type conversion error from '" + std::string(from) + "' to '" + std::string(to) + "'");
}

Value to_int(const Value& v) {
  switch (v.kind()) {
    case Kind::Int:
      return v;
    case Kind::Uint:
      if (v.as_uint() > static_cast<std::uint64_t>(INT64_MAX)) return integer_overflow();
      return Value::integer(static_cast<std::int64_t>(v.as_uint()));
    case Kind::Double: {
      double d = v.as_double();
      if (std::isnan(d) || d <= -kTwoTo63 - 1025.0 || d >= kTwoTo63) return integer_overflow();
      return Value::integer(static_cast<std::int64_t>(d));
    }
    case Kind::String: {
      std::int64_t out = 0;
      auto s = v.text();
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return conversion_error("string", "int");
      return Value::integer(out);
    }
    default:
      return no_such_overload();
  }
}

Value to_uint(const Value& v) {
  switch (v.kind()) {
    case Kind::Uint:
      return v;
    case Kind::Int:
      if (v.as_int() < 0) return unsigned_overflow();
      return Value::uinteger(static_cast<std::uint64_t>(v.as_int()));
    case Kind::Double: {
      double d = v.as_double();
      if (std::isnan(d) || d < 0 || d >= kTwoTo64) return unsigned_overflow();
      return Value::uinteger(static_cast<std::uint64_t>(d));
    }
    case Kind::String: {
      std::uint64_t out = 0;
      auto s = v.text();
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return conversion_error("string", "uint");
      return Value::uinteger(out);
    }
    default:
      return no_such_overload();
  }
}

Value to_double(const Value& v) {
  switch (v.kind()) {
    case Kind::Double:
      return v;
    case Kind::Int:
      return Value::real(static_cast<double>(v.as_int()));
    case Kind::Uint:
      return Value::real(static_cast<double>(v.as_uint()));
    case Kind::String: {
      std::string s(v.text());
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size()) return conversion_error("string", "double");
      return Value::real(d);
    }
    default:
      return no_such_overload();
  }
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto [r, w] = utf8::decode(s.substr(i));
    if (r == 0xFFFD && w == 1 && s.compare(i, 3, "\xEF\xBF\xBD") != 0) return false;
    i += w;
  }
  return true;
}

/// Go's strconv.FormatFloat(d, 'g', -1, 64) for the usual cases: shortest round-trip
/// digits, exponent form below 1e-4 and from 1e21 on.
std::string format_double(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  (void)ec;
  return std::string(buf, end);
}

}  // namespace

Value call_conversion(Builtin fn, std::span<const Value> args) {
  const Value& v = args[0];
  switch (fn) {
    case Builtin::Size:
      if (v.is(Kind::String)) return Value::integer(static_cast<std::int64_t>(utf8::count(v.text())));
      if (v.is(Kind::Bytes)) return Value::integer(static_cast<std::int64_t>(v.text().size()));
      if (v.is(Kind::List) || v.is(Kind::Map)) return Value::integer(static_cast<std::int64_t>(v.size()));
      return no_such_overload();
    case Builtin::Int:
      return to_int(v);
    case Builtin::Uint:
      return to_uint(v);
    case Builtin::Double:
      return to_double(v);
    case Builtin::String:
      switch (v.kind()) {
        case Kind::String: return v;
        case Kind::Int: return Value::string(std::to_string(v.as_int()));
        case Kind::Uint: return Value::string(std::to_string(v.as_uint()));
        case Kind::Double: return Value::string(format_double(v.as_double()));
        case Kind::Bool: return Value::borrowed_string(v.as_bool() ? "true" : "false");
        case Kind::Bytes:
          if (!valid_utf8(v.text())) return conversion_error("bytes", "string");
          return Value::string(std::string(v.text()));
        default: return no_such_overload();
      }
    case Builtin::Bytes:
      if (v.is(Kind::Bytes)) return v;
      if (v.is(Kind::String)) return Value::bytes(std::string(v.text()));
      return no_such_overload();
    case Builtin::Bool:
      if (v.is(Kind::Bool)) return v;
      if (v.is(Kind::String)) {
        auto s = v.text();
        if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") return Value::boolean(true);
        if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
          return Value::boolean(false);
        }
        return conversion_error("string", "bool");
      }
      return no_such_overload();
    case Builtin::Type:
      return Value::type(kind_name(v.kind()));
    case Builtin::Dyn:
      return v;
    default:
      return no_such_overload();
  }
}

}  // namespace kueuepp::kube::schema::cel
