#pragma once

// Checks one step's actual response against the recording (README §2 rules 2–7) and
// applies its captures (rule 9). Pure: no I/O.

#include <optional>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/client/http_types.hpp"
#include "kube/apiserver/conformance/placeholders.hpp"
#include "kube/apiserver/conformance/trace.hpp"

namespace kueuepp::kube::conformance {

/// What the server under test answered (for watch steps, the whole stream).
struct ActualResponse {
  int status = 0;
  client::Headers headers;
  std::string body;
};

/// The body as the recorder saw it: parsed JSON under a JSON Content-Type, else the
/// text as a JSON string; null when empty.
json::value body_as_json(const ActualResponse& response);

/// The texts of the response's Warning headers, in order.
std::vector<std::string> actual_warnings(const client::Headers& headers);

/// The events of a watch body, BOOKMARKs dropped, each `{"type", "object"}`.
Expected<json::array> watch_events(std::string_view body);

/// The first difference (status, body or events, warnings, asserts), or nullopt.
std::optional<std::string> check_step(const TraceStep& step, const ActualResponse& actual,
                                      const Captures& captures);

/// Stores the step's captures from the actual body; the error names a missing path.
std::optional<std::string> apply_captures(const TraceStep& step, const json::value& body,
                                          Captures& captures);

}  // namespace kueuepp::kube::conformance
