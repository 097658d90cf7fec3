#pragma once

// What the recorder writes instead of the values that differ from run to run
// (README 1.6): server-generated uids, resourceVersions, timestamps, continue tokens
// and generated name suffixes become tokens; managedFields are dropped. One
// normalizer lives for one trace, because a resourceVersion seen in an earlier answer
// is recognized later inside a message, and a generated name wherever it reappears.
// Pure: no I/O.

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "kube/json/json.hpp"

namespace kueuepp::kube::conformance {

class ResponseNormalizer {
 public:
  /// Values the trace itself sends (its request paths and bodies): uids and timestamps
  /// found there are kept verbatim when the server echoes them, so the echo is checked.
  void note_trace_written(const json::value& request_body);
  void note_trace_written(std::string_view text);

  /// A response body (or one watch event), normalized. Notes its resourceVersions and
  /// generated names first, so they are recognized in this answer and later ones.
  json::value normalize(const json::value& body);

  /// A Warning header text, normalized like a string in a body.
  std::string normalize_text(std::string_view text) const;

 private:
  void observe(const json::value& v);
  void rewrite(json::value& v) const;
  std::string rewrite_string(std::string_view text, bool is_message) const;

  std::set<std::string, std::less<>> written_uids_;
  std::set<std::string, std::less<>> written_times_;
  std::set<std::string, std::less<>> seen_resource_versions_;
  /// generated name → generateName + "<generated>"
  std::map<std::string, std::string, std::less<>> generated_names_;
};

/// True when `text` is a UUID in its canonical 8-4-4-4-12 hexadecimal form.
bool is_uuid(std::string_view text);
/// True when `text` is an RFC 3339 date-time (`2024-01-01T00:00:00Z`, fractions and
/// offsets allowed).
bool is_rfc3339_time(std::string_view text);

}  // namespace kueuepp::kube::conformance
