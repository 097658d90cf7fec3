#pragma once

// Paths into JSON documents as the conformance traces write them (README 1.5):
// segments joined by `.`, with `\.` for a literal dot and `\\` for a backslash; a
// decimal segment indexes an array (or is a key when the value there is an object);
// `*` is every key/element (ignore and contains only); `**` is zero or more segments
// at any depth (ignore only). The empty path is the whole document.
// A language of the traces' own, not Kubernetes' JSONPath (`.a[?(@.k=='v')]`, which
// printer columns use: kube/apiserver/server/util/kubectl_jsonpath.hpp).

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conformance {

struct PathSegment {
  enum class Kind { Key, Star, DoubleStar };
  Kind kind = Kind::Key;
  std::string key;  ///< for Key

  bool operator==(const PathSegment&) const = default;
};

using TracePath = std::vector<PathSegment>;

enum class PathUse {
  Exact,     ///< capture, asserts: keys and indices only
  Contains,  ///< `*` allowed
  Ignore,    ///< `*` and `**` allowed
};

/// Parses a path; the error names the path and what is wrong with it.
Expected<TracePath> parse_trace_path(std::string_view text, PathUse use);

/// Renders a path of concrete keys/indices in trace syntax (dots in keys escaped), or
/// "(whole body)" for the empty path.
std::string render_path(const std::vector<std::string>& keys);

/// The value at an exact path, or nullptr.
const json::value* lookup(const json::value& document, const TracePath& path);

/// Removes every value the path addresses (array elements are removed from their
/// array). The empty path turns the whole document into null.
void remove_matching(json::value& document, const TracePath& path);

/// True when the concrete location `keys` (object keys / decimal indices) matches
/// `pattern` segment by segment, `*` matching any one segment.
bool location_matches(const TracePath& pattern, const std::vector<std::string>& keys);

/// "0", "12": a decimal array index.
bool is_decimal(std::string_view segment);

}  // namespace kueuepp::kube::conformance
