#pragma once

// Recorded strings with normalization tokens (README 1.6): `<uid>`, `<rv>`, `<time>`,
// `<continue>` and `<generated>` each match a run of one or more arbitrary characters;
// every other character matches itself; the whole actual string must match.

#include <string_view>

namespace kueuepp::kube::conformance {

/// True when `recorded` holds at least one token.
bool has_token(std::string_view recorded);

/// The string rule of the comparison: equal, or a token-pattern match.
bool string_matches(std::string_view recorded, std::string_view actual);

}  // namespace kueuepp::kube::conformance
