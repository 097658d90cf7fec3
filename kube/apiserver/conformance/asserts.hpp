#pragma once

// Step asserts (README §2 rule 7), on the actual (not normalized) body.

#include <optional>
#include <string>

#include "kube/apiserver/conformance/placeholders.hpp"
#include "kube/apiserver/conformance/trace.hpp"

namespace kueuepp::kube::conformance {

/// Why the assertion fails (nullopt when it holds). Placeholders in the value are
/// substituted first; an unknown placeholder fails the assertion.
std::optional<std::string> check_assertion(const Assertion& assertion, const json::value& actual,
                                           const Captures& captures);

}  // namespace kueuepp::kube::conformance
