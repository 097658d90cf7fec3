#pragma once

// Records traces from a real kube-apiserver (README §1): sends each step of a trace
// *script* (the trace format, responses absent or ignored), substitutes placeholders
// and captures as the replayer does, and writes the step back with the server's
// normalized answer (status, body or watch events, Warning headers). Asserts are
// checked on the real answers, so a script whose expectations the real server does
// not meet is reported rather than recorded.

#include <string>

#include "core/expected.hpp"
#include "kube/apiserver/conformance/replayer.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conformance {

struct RecordContext {
  /// Appended to the description, e.g. "kube-apiserver v1.32.13".
  std::string recorded_against;
};

/// The recorded trace for the script text `script` (`file` names it in errors).
/// A polled step repeats until the script's status (when given) and its asserts hold.
Expected<json::value> record_trace(std::string_view script, const std::string& file,
                                   ReplayTransport& transport, const RecordContext& context,
                                   const ReplayClock& clock = ReplayClock::real());

}  // namespace kueuepp::kube::conformance
