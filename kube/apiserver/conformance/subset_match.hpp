#pragma once

// The body comparison of README §2 rule 4: the recorded value must be a subset of the
// actual one (objects: every recorded key present and matching, a recorded null also
// matching an absent key; arrays: same length and pairwise, or — under a `contains`
// path — each recorded element matching a distinct actual element in any order;
// strings: equal or token pattern; numbers: numerically equal, json::numbers_equal).

#include <optional>
#include <string>
#include <vector>

#include "kube/apiserver/conformance/trace_path.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conformance {

/// Where and how two documents differ.
struct Difference {
  std::string path;     ///< trace path syntax, e.g. `metadata.labels.app`
  std::string message;  ///< e.g. `expected "ct", actual "x"`

  std::string str() const { return path + ": " + message; }
};

/// The first difference, or nullopt when `recorded` is a subset of `actual`.
/// `contains` holds the (parsed) contains paths of the step.
std::optional<Difference> first_difference(const json::value& recorded, const json::value& actual,
                                           const std::vector<TracePath>& contains);

/// Compact JSON, cut to `max` characters (for messages).
std::string excerpt(const json::value& v, std::size_t max = 160);

/// Maximum bipartite matching: can every left element be matched to a distinct right
/// element, `compatible(l, r)` saying which pairs are allowed? Returns the index of a
/// left element left unmatched, or nullopt when all are matched.
std::optional<std::size_t> unmatched_left(std::size_t left, std::size_t right,
                                          const std::vector<std::vector<char>>& compatible);

}  // namespace kueuepp::kube::conformance
