#include "kube/leader/lease_names.hpp"

#include <cstdio>
#include <random>

namespace kueuepp::kube::leader {

namespace {

constexpr std::size_t kMaxSubdomain = 253;

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string hex(std::uint64_t v, int digits) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return std::string(buf + (16 - digits));
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

/// One DNS label: alphanumerics and '-', trimmed to start and end alphanumeric.
std::string clean_label(std::string_view raw) {
  std::string label;
  for (char c : raw) {
    c = lower(c);
    label += alnum(c) ? c : '-';
  }
  std::size_t begin = 0;
  while (begin < label.size() && !alnum(label[begin])) ++begin;
  std::size_t end = label.size();
  while (end > begin && !alnum(label[end - 1])) --end;
  return label.substr(begin, end - begin);
}

/// Every non-empty label of `text`, cleaned, joined by '.'.
std::string clean_labels(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t dot = text.find('.', start);
    if (dot == std::string_view::npos) dot = text.size();
    std::string label = clean_label(text.substr(start, dot - start));
    if (!label.empty()) {
      if (!out.empty()) out += '.';
      out += label;
    }
    start = dot + 1;
  }
  return out;
}

}  // namespace

// Kubernetes checks object names with IsDNS1123Subdomain: the pattern and the total
// length, not the 63-character limit of each label.
std::string sanitize_subdomain(std::string_view text) {
  std::string out = clean_labels(text);
  if (out.empty()) return "x-" + hex(fnv1a(text), 8);
  if (out.size() <= kMaxSubdomain) return out;
  const std::string suffix = "-" + hex(fnv1a(text), 8);
  out.resize(kMaxSubdomain - suffix.size());
  while (!out.empty() && !alnum(out.back())) out.pop_back();
  return out + suffix;
}

std::string shard_lease_name(std::string_view prefix, std::uint32_t shard) {
  return sanitize_subdomain(prefix) + "-shard-" + std::to_string(shard);
}

std::string member_lease_prefix(std::string_view prefix) { return sanitize_subdomain(prefix) + "-member-"; }

std::string member_lease_name(std::string_view prefix, std::string_view identity) {
  // The identity becomes one label's tail (no dots), so every member Lease name starts
  // with member_lease_prefix.
  std::string tail;
  for (char c : identity) {
    c = lower(c);
    tail += alnum(c) ? c : '-';
  }
  // A name must end alphanumeric; trimming the tail instead would merge identities.
  if (tail.empty() || !alnum(tail.back())) tail += hex(fnv1a(identity), 8);
  return sanitize_subdomain(member_lease_prefix(prefix) + tail);
}

std::string make_identity(std::string_view pod_name, std::uint64_t random_bits) {
  return std::string(pod_name) + "_" + hex(random_bits, 16);
}

std::string make_identity(std::string_view pod_name) {
  std::random_device rd;
  const std::uint64_t bits = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  return make_identity(pod_name, bits);
}

}  // namespace kueuepp::kube::leader
