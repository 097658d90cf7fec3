#include "kube/apiserver/schema/field_errors.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "kube/apiserver/schema/utf8.hpp"

namespace kueuepp::kube::schema {

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    auto [r, w] = utf8::decode(s.substr(i));
    bool invalid = r == 0xFFFD && w == 1 && s.compare(i, 3, "\xEF\xBF\xBD") != 0;
    char buf[16];
    if (invalid) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i]));
      out += buf;
    } else if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (r >= 0x20 && r != 0x7F) {
      out.append(s.substr(i, w));
    } else {
      switch (r) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        default:
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(r));
          out += buf;
      }
    }
    i += w;
  }
  out += '"';
  return out;
}

// %v (strconv's 'g' with the shortest digits that round-trip): exponent form when the
// decimal exponent is below -4 or at least 6, so 1e6 prints as "1e+06" and 123456 as is.
std::string go_float(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char sci[64];
  auto [end, ec] = std::to_chars(sci, sci + sizeof sci, d, std::chars_format::scientific);
  (void)ec;
  std::string s(sci, end);
  std::size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  if (exp < -4 || exp >= 6) {
    std::string mantissa = s.substr(0, e);
    char sign = exp < 0 ? '-' : '+';
    int a = std::abs(exp);
    return mantissa + "e" + sign + (a < 10 ? "0" : "") + std::to_string(a);
  }
  char fixed[400];
  auto [fend, fec] = std::to_chars(fixed, fixed + sizeof fixed, d, std::chars_format::fixed);
  (void)fec;
  return std::string(fixed, fend);
}

namespace {

// Go's %#v of decoded JSON (map[string]interface {}, []interface {}, ...).
std::string go_sharp_v(const json::value& v, int depth) {
  if (depth > 64) return "...";
  switch (v.kind()) {
    case boost::json::kind::null: return "interface {}(nil)";
    case boost::json::kind::bool_: return v.get_bool() ? "true" : "false";
    case boost::json::kind::int64: return std::to_string(v.get_int64());
    case boost::json::kind::uint64: return std::to_string(v.get_uint64());
    case boost::json::kind::double_: return go_float(v.get_double());
    case boost::json::kind::string: return go_quote({v.get_string().data(), v.get_string().size()});
    case boost::json::kind::array: {
      std::string out = "[]interface {}{";
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out += ", ";
        first = false;
        out += go_sharp_v(e, depth + 1);
      }
      return out + "}";
    }
    case boost::json::kind::object: {
      std::vector<const json::object::value_type*> entries;
      for (const auto& kv : v.get_object()) entries.push_back(&kv);
      std::sort(entries.begin(), entries.end(), [](auto a, auto b) { return a->key() < b->key(); });
      std::string out = "map[string]interface {}{";
      bool first = true;
      for (const auto* kv : entries) {
        if (!first) out += ", ";
        first = false;
        out += go_quote({kv->key().data(), kv->key().size()}) + ":" + go_sharp_v(kv->value(), depth + 1);
      }
      return out + "}";
    }
  }
  return "";
}

FieldError make(std::string_view type, std::string field, std::string body, std::string_view detail) {
  if (!detail.empty()) {
    body += ": ";
    body += detail;
  }
  return FieldError{std::string(type), std::move(field), std::move(body)};
}

}  // namespace

std::string go_value(const json::value* v) {
  if (v == nullptr || v->is_null()) return "\"null\"";
  if (v->is_string()) return go_quote({v->get_string().data(), v->get_string().size()});
  if (v->is_double()) return go_float(v->get_double());
  return go_sharp_v(*v, 0);
}

namespace field_errors {

FieldError required(std::string field, std::string_view detail) {
  return make("FieldValueRequired", std::move(field), "Required value", detail);
}

FieldError forbidden(std::string field, std::string_view detail) {
  return make("FieldValueForbidden", std::move(field), "Forbidden", detail);
}

FieldError invalid(std::string field, const std::string& value, std::string_view detail) {
  return make("FieldValueInvalid", std::move(field), "Invalid value: " + value, detail);
}

FieldError type_invalid(std::string field, const std::string& value, std::string_view detail) {
  return make("FieldValueTypeInvalid", std::move(field), "Invalid value: " + value, detail);
}

FieldError not_supported(std::string field, const std::string& value, const std::vector<std::string>& valid) {
  std::string detail;
  for (const auto& v : valid) {
    detail += detail.empty() ? "supported values: " : ", ";
    detail += go_quote(v);
  }
  return make("FieldValueNotSupported", std::move(field), "Unsupported value: " + value, detail);
}

FieldError duplicate(std::string field, const std::string& value) {
  return make("FieldValueDuplicate", std::move(field), "Duplicate value: " + value, {});
}

FieldError too_long(std::string field, std::int64_t max) {
  return make("FieldValueTooLong", std::move(field), "Too long",
              max >= 0 ? "may not be longer than " + std::to_string(max) : "value is too long");
}

FieldError too_many(std::string field, std::int64_t actual, std::int64_t max) {
  std::string value = actual >= 0 ? std::to_string(actual) : "<omitted>";
  return make("FieldValueTooMany", std::move(field), "Too many: " + value,
              max >= 0 ? "must have at most " + std::to_string(max) + " items" : "has too many items");
}

FieldError internal(std::string field, std::string_view detail) {
  return make("InternalError", std::move(field), "Internal error", detail);
}

}  // namespace field_errors
}  // namespace kueuepp::kube::schema
