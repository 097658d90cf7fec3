#include "kube/apiserver/server/store/field_selector.hpp"

#include <fmt/format.h>

namespace kueuepp::kube::server {

namespace {

/// Splits on unescaped commas.
std::vector<std::string_view> split_terms(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == ',') {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

// A value as kube-apiserver unescapes it: \\, \, and \= stand for the character; any
// other escape, a trailing backslash and an unescaped ',' or '=' are errors.
Expected<std::string> unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ',' || c == '=') {
      return fail(fmt::format("invalid field selector: unescaped character in value: {}", static_cast<int>(c)));
    }
    if (c == '\\') {
      if (i + 1 == s.size()) return fail("invalid field selector: invalid escape sequence: \\");
      const char next = s[++i];
      if (next != '\\' && next != ',' && next != '=') {
        return fail(fmt::format("invalid field selector: invalid escape sequence: \\{}", next));
      }
      out.push_back(next);
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

Expected<FieldSelector> FieldSelector::parse(std::string_view text) {
  FieldSelector sel;
  if (text.empty()) return sel;
  for (std::string_view term : split_terms(text)) {
    if (term.empty()) continue;
    std::size_t pos = std::string_view::npos;
    std::size_t len = 0;
    bool equals = true;
    for (std::size_t i = 0; i < term.size(); ++i) {
      if (term[i] == '\\') {
        ++i;
        continue;
      }
      if (term.substr(i, 2) == "!=") {
        pos = i, len = 2, equals = false;
      } else if (term.substr(i, 2) == "==") {
        pos = i, len = 2;
      } else if (term[i] == '=') {
        pos = i, len = 1;
      } else {
        continue;
      }
      break;
    }
    if (pos == std::string_view::npos || pos == 0) {
      return fail(fmt::format("invalid selector: '{}'; can't understand '{}'", text, term));
    }
    auto value = unescape(term.substr(pos + len));
    if (!value) return unexpected(value.error());
    sel.terms_.push_back(Term{std::string(term.substr(0, pos)), equals, std::move(*value)});
  }
  return sel;
}

bool FieldSelector::matches(const Lookup& lookup) const {
  for (const auto& t : terms_) {
    auto v = lookup(t.field);
    std::string_view have = v ? std::string_view(*v) : std::string_view();
    if ((have == t.value) != t.equals) return false;
  }
  return true;
}

std::optional<std::string_view> FieldSelector::required_value(std::string_view field) const {
  for (const auto& t : terms_) {
    if (t.equals && t.field == field) return std::string_view(t.value);
  }
  return std::nullopt;
}

}  // namespace kueuepp::kube::server
