#include "kube/apiserver/server/util/validation.hpp"

#include <fmt/format.h>

namespace kueuepp::kube::server {

namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

bool is_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s) {
    if (!lower_alnum(c) && c != '-') return false;
  }
  return true;
}

bool is_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? s.size() - start : dot - start);
    if (part.empty() || !lower_alnum(part.front()) || !lower_alnum(part.back())) return false;
    for (char c : part) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

/// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool is_qualified_part(std::string_view s) {
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

constexpr std::string_view kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr std::string_view kQualifiedMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr std::string_view kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

}  // namespace

Problems dns1123_label_problems(std::string_view s) {
  Problems out;
  if (s.size() > 63) out.emplace_back("must be no more than 63 characters");
  if (!is_label(s.substr(0, std::min<std::size_t>(s.size(), 63))) || s.empty()) {
    out.emplace_back(kLabelMsg);
  }
  return out;
}

Problems dns1035_label_problems(std::string_view s) {
  Problems out;
  if (s.size() > 63) out.emplace_back("must be no more than 63 characters");
  bool ok = !s.empty() && s.front() >= 'a' && s.front() <= 'z' && lower_alnum(s.back());
  for (char c : s) ok = ok && (lower_alnum(c) || c == '-');
  if (!ok) {
    out.emplace_back(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  }
  return out;
}

Problems dns1123_subdomain_problems(std::string_view s) {
  Problems out;
  if (s.size() > 253) out.emplace_back("must be no more than 253 characters");
  if (!is_subdomain(s.substr(0, std::min<std::size_t>(s.size(), 253))) || s.empty()) {
    out.emplace_back(kSubdomainMsg);
  }
  return out;
}

Problems qualified_name_problems(std::string_view s) {
  Problems out;
  std::string_view name = s;
  std::size_t slash = s.find('/');
  if (slash != std::string_view::npos) {
    std::string_view prefix = s.substr(0, slash);
    name = s.substr(slash + 1);
    if (prefix.empty()) {
      out.emplace_back("prefix part must be non-empty");
    } else if (!is_subdomain(prefix)) {
      out.push_back(fmt::format("prefix part {}", kSubdomainMsg));
    }
    if (name.find('/') != std::string_view::npos) {
      out.emplace_back(
          "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
          "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
          "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
          "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return out;
    }
  }
  if (name.empty()) {
    out.emplace_back("name part must be non-empty");
  } else if (name.size() > 63) {
    out.emplace_back("name part must be no more than 63 characters");
  }
  if (!is_qualified_part(name)) out.emplace_back(kQualifiedMsg);
  return out;
}

Problems label_value_problems(std::string_view s) {
  Problems out;
  if (s.empty()) return out;
  if (s.size() > 63) out.emplace_back("must be no more than 63 characters");
  if (!is_qualified_part(s)) out.emplace_back(kLabelValueMsg);
  return out;
}

Problems path_segment_problems(std::string_view s) {
  Problems out;
  if (s == "." || s == "..") out.push_back(fmt::format("may not be '{}'", s));
  if (s.find('/') != std::string_view::npos) out.emplace_back("may not contain '/'");
  if (s.find('%') != std::string_view::npos) out.emplace_back("may not contain '%'");
  return out;
}

Problems config_key_problems(std::string_view s) {
  Problems out;
  if (s.size() > 253) out.emplace_back("must be no more than 253 characters");
  bool chars = !s.empty();
  for (char c : s) chars = chars && (alnum(c) || c == '-' || c == '_' || c == '.');
  if (!chars) {
    out.emplace_back(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
        "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  }
  if (s == "." || s == "..") {
    out.push_back(fmt::format("must not be '{}'", s));
  } else if (s.substr(0, 2) == "..") {
    out.emplace_back("must not start with '..'");
  }
  return out;
}

}  // namespace kueuepp::kube::server
