#include "kube/http/headers.hpp"

namespace kueuepp::http {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::optional<std::string_view> find_header(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return std::string_view(value);
  }
  return std::nullopt;
}

std::vector<std::string_view> find_headers(const Headers& headers, std::string_view name) {
  std::vector<std::string_view> values;
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) values.emplace_back(value);
  }
  return values;
}

}  // namespace kueuepp::http
