#pragma once

// A recorded kube-apiserver trace (README §1): steps of requests and the real server's
// normalized responses, with captures, ignores, contains, asserts and polls. Loading
// validates every path so a malformed trace is reported before anything is sent.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/conformance/trace_path.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conformance {

struct Assertion {
  enum class Op { Eq, Ne, Absent, Present, Empty };
  std::string path_text;
  TracePath path;
  Op op = Op::Present;
  json::value value;  ///< for eq/ne, before placeholder substitution
};

struct Poll {
  double timeout_seconds = 0;
  double interval_seconds = 0.2;
};

struct TraceStep {
  std::size_t number = 0;  ///< 1-based
  std::string method;
  std::string path;  ///< with placeholders
  std::vector<std::pair<std::string, std::string>> headers;
  /// null: no body; a string: sent verbatim; anything else: sent as JSON.
  json::value body;
  bool watch = false;  ///< the path's query has watch=1 or watch=true

  int status = 0;
  /// The recorded body (absent for watch steps that recorded events; a step that
  /// records neither is not compared on its body).
  std::optional<json::value> response_body;
  std::optional<json::array> events;
  std::optional<std::vector<std::string>> warnings;

  std::vector<std::pair<std::string, TracePath>> captures;  ///< name → exact path
  std::vector<TracePath> ignore;
  std::vector<TracePath> contains;
  std::vector<Assertion> asserts;
  std::optional<Poll> poll;
};

struct Trace {
  std::string name;
  std::string description;
  std::string file;
  std::vector<TraceStep> steps;
};

/// A trace to replay has a response in every step; a trace *script*, the recorder's
/// input, may leave responses out (a script step's status, when given, is what a
/// polled step waits for).
enum class TraceKind { Recorded, Script };

/// Parses a trace; `file` names it in errors and gives the default name.
Expected<Trace> parse_trace(std::string_view text, const std::string& file,
                            TraceKind kind = TraceKind::Recorded);
Expected<Trace> load_trace(const std::string& file, TraceKind kind = TraceKind::Recorded);
/// The whole text of a trace file.
Expected<std::string> read_trace_file(const std::string& file);

/// True when a request path's query has watch=1 or watch=true.
bool is_watch_path(std::string_view path);

}  // namespace kueuepp::kube::conformance
