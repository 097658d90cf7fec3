#include "kube/jobs/k8s_names.hpp"

namespace kueuepp::kube::jobs {

namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

/// One DNS-1123 label without the length limit.
bool dns_label_chars(std::string_view s) {
  if (s.empty() || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s) {
    if (!lower_alnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace

bool is_dns1123_subdomain(std::string_view value) {
  if (value.empty() || value.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = value.find('.', start);
    std::string_view part = value.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!dns_label_chars(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_dns1123_label(std::string_view value) { return value.size() <= 63 && dns_label_chars(value); }

bool is_valid_label_value(std::string_view value) {
  if (value.empty()) return true;
  if (value.size() > 63 || !alnum(value.front()) || !alnum(value.back())) return false;
  for (char c : value) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace kueuepp::kube::jobs
