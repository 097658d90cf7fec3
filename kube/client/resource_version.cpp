#include "kube/client/resource_version.hpp"

#include <charconv>
#include <cstdint>

namespace kueuepp::kube::client {

namespace {

std::optional<std::uint64_t> as_number(std::string_view rv) {
  std::uint64_t value = 0;
  if (rv.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), value);
  if (ec != std::errc() || end != rv.data() + rv.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::strong_ordering> compare_resource_versions(std::string_view a, std::string_view b) {
  auto x = as_number(a);
  auto y = as_number(b);
  if (!x || !y) return std::nullopt;
  return *x <=> *y;
}

bool older_resource_version(std::string_view candidate, std::string_view known) {
  auto order = compare_resource_versions(candidate, known);
  return order && *order == std::strong_ordering::less;
}

}  // namespace kueuepp::kube::client
