#pragma once

// What makes a round trip between two versions exact: when an object is converted, the
// fields the target version cannot express are recorded in an annotation of the
// converted object (kStashAnnotation), and restored when it is converted back.
//
// The stash is not a list of Kueue's lossy fields but the difference, path by path,
// between the source and what converting the result back gives (conversion_stash.cpp
// computes it), so any loss is covered, also ones this table does not know. Each entry
// keeps the value the plain conversion back gives at its path: an entry is restored
// only while that still holds, so an edit made in the other version since wins over the
// stash. Entries are restored all or none per top-level field (spec, status, metadata),
// so a restored spec is never half old, half edited.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/conversion/document_path.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conversion {

inline constexpr std::string_view kStashAnnotation = "kueuepp.io/conversion-stash";

struct StashEntry {
  DocumentPath path;
  std::optional<json::value> original;   ///< the source's value; none when it had none
  std::optional<json::value> converted;  ///< what converting back gives there
};

struct Stash {
  std::string version;  ///< the version the entries restore into ("v1beta1")
  std::vector<StashEntry> entries;
  /// The annotation was the object's only one: taking it removes metadata.annotations.
  bool annotations_added = false;
  /// The object had no metadata: taking the stash removes the metadata it left empty.
  bool metadata_added = false;
};

/// Where `round_trip` differs from `source`, as entries (deepest differing member;
/// arrays of different lengths as a whole).
std::vector<StashEntry> diff_documents(const json::value& source, const json::value& round_trip);

/// Removes the stash annotation and returns the stash; none when absent or unreadable (an
/// unreadable stash is ignored: the plain conversion is still right, only not exact).
std::optional<Stash> take_stash(json::object& object);

/// Adds the annotation (metadata and metadata.annotations made when missing; both must
/// be objects when present).
void put_stash(json::object& object, const Stash& stash);

/// Applies the entries whose `converted` value still matches `object`, per top-level group.
void restore_stash(json::value& object, const std::vector<StashEntry>& entries);

}  // namespace kueuepp::kube::conversion
