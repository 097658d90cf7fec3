#include "actors/introspection_query.hpp"

#include <charconv>

namespace kueuepp::actors {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Percent-decodes `text` ('+' is a space, as forms send it); a malformed escape stays as written.
std::string decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

Expected<std::size_t> count_at(const IntrospectionTarget& target, std::string_view name, std::size_t fallback) {
  auto it = target.query.find(name);
  if (it == target.query.end()) return fallback;
  const std::string& text = it->second;
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return fail("query parameter " + std::string(name) + "=\"" + text + "\" is not a non-negative integer");
  }
  return value;
}

}  // namespace

IntrospectionTarget split_target(std::string_view target) {
  IntrospectionTarget out;
  auto question = target.find('?');
  out.path = std::string(target.substr(0, question));
  if (question == std::string_view::npos) return out;
  std::string_view query = target.substr(question + 1);
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      auto eq = pair.find('=');
      std::string key = decode(pair.substr(0, eq));
      std::string value = eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1));
      out.query.insert_or_assign(std::move(key), std::move(value));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

Expected<Page> page_of(const IntrospectionTarget& target, std::size_t default_limit, std::size_t max_limit) {
  auto offset = count_at(target, "offset", 0);
  if (!offset) return fail(offset.error().message);
  auto limit = count_at(target, "limit", default_limit);
  if (!limit) return fail(limit.error().message);
  if (*limit == 0 || *limit > max_limit) {
    return fail("query parameter limit=" + std::to_string(*limit) + " is out of range: ask for 1 to " +
                std::to_string(max_limit) + " items and page on with offset");
  }
  return Page{*offset, *limit};
}

}  // namespace kueuepp::actors
