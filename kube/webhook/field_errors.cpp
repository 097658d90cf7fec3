#include "kube/webhook/field_errors.hpp"

#include <fmt/format.h>

#include <set>

namespace kueuepp::kube::webhook {

FieldPath FieldPath::child(std::string_view name) const {
  FieldPath p;
  p.text_ = text_.empty() ? std::string(name) : text_ + "." + std::string(name);
  return p;
}

FieldPath FieldPath::index(std::size_t i) const {
  FieldPath p;
  p.text_ = fmt::format("{}[{}]", text_, i);
  return p;
}

FieldPath FieldPath::key(std::string_view k) const {
  FieldPath p;
  p.text_ = fmt::format("{}[{}]", text_, k);
  return p;
}

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

namespace {

std::string_view type_name(FieldError::Type t) {
  switch (t) {
    case FieldError::Type::Invalid: return "Invalid value";
    case FieldError::Type::Forbidden: return "Forbidden";
    case FieldError::Type::Duplicate: return "Duplicate value";
    case FieldError::Type::NotSupported: return "Unsupported value";
    case FieldError::Type::Required: return "Required value";
    case FieldError::Type::TooMany: return "Too many";
  }
  return "Invalid value";
}

bool prints_value(FieldError::Type t) { return t != FieldError::Type::Forbidden && t != FieldError::Type::Required; }

}  // namespace

std::string FieldError::message() const {
  std::string s = field + ": " + std::string(type_name(type));
  if (prints_value(type)) s += ": " + value;
  if (!detail.empty()) s += ": " + detail;
  return s;
}

FieldError invalid(const FieldPath& path, std::string quoted_value, std::string detail) {
  return FieldError{FieldError::Type::Invalid, path.str(), std::move(quoted_value), std::move(detail)};
}

FieldError invalid_string(const FieldPath& path, std::string_view value, std::string detail) {
  return invalid(path, go_quote(value), std::move(detail));
}

FieldError invalid_int(const FieldPath& path, std::int64_t value, std::string detail) {
  return invalid(path, std::to_string(value), std::move(detail));
}

FieldError forbidden(const FieldPath& path, std::string detail) {
  return FieldError{FieldError::Type::Forbidden, path.str(), {}, std::move(detail)};
}

FieldError duplicate(const FieldPath& path, std::string quoted_value) {
  return FieldError{FieldError::Type::Duplicate, path.str(), std::move(quoted_value), {}};
}

FieldError not_supported(const FieldPath& path, std::string_view value, const std::vector<std::string>& supported) {
  std::string detail = "supported values: ";
  for (std::size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) detail += ", ";
    detail += go_quote(supported[i]);
  }
  return FieldError{FieldError::Type::NotSupported, path.str(), go_quote(value), std::move(detail)};
}

void check_immutable(std::string_view new_value, std::string_view old_value, const FieldPath& path, FieldErrors& out) {
  if (new_value != old_value) out.push_back(invalid_string(path, new_value, "field is immutable"));
}

std::string aggregate(const FieldErrors& errors) {
  std::vector<std::string> messages;
  std::set<std::string> seen;
  for (const auto& e : errors) {
    std::string m = e.message();
    if (seen.insert(m).second) messages.push_back(std::move(m));
  }
  if (messages.size() == 1) return messages.front();
  std::string out = "[";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i > 0) out += ", ";
    out += messages[i];
  }
  return out + "]";
}

}  // namespace kueuepp::kube::webhook
