#pragma once

// Warning response headers (`299 - "text"`, RFC 7234 §5.5) and their comparison with
// the recorded texts (README §2 rule 6).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kueuepp::kube::conformance {

/// The texts of one Warning header value (it may hold several comma-separated
/// warnings). A value that does not parse is returned whole.
std::vector<std::string> parse_warning_header(std::string_view value);

/// Why the recorded warnings are not matched by distinct actual ones, or nullopt.
std::optional<std::string> match_warnings(const std::vector<std::string>& recorded,
                                          const std::vector<std::string>& actual);

}  // namespace kueuepp::kube::conformance
