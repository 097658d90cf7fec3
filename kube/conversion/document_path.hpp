#pragma once

// A path into a JSON document: object keys and array indices, as a JSON array of
// strings and integers (unambiguous without RFC 6901's escaping). The conversion stash
// records where a converted object differs from its source by such paths.

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conversion {

using PathStep = std::variant<std::string, std::size_t>;
using DocumentPath = std::vector<PathStep>;

/// The value at `path`, or nullptr when a step is missing or of the other container kind.
const json::value* value_at(const json::value& document, const DocumentPath& path);
json::value* value_at(json::value& document, const DocumentPath& path);

/// Sets the value at `path`, creating the objects a key step needs; an index step must
/// name an existing array element. The error says which step could not be taken.
Status set_value_at(json::value& document, const DocumentPath& path, json::value v);

/// Removes the member or element at `path`; nothing to remove is not an error.
void erase_value_at(json::value& document, const DocumentPath& path);

/// As a JSON array ["spec", "podSets", 0, "name"], and back (the error names the step).
json::array path_to_json(const DocumentPath& path);
Expected<DocumentPath> path_from_json(const json::value& v);

/// "spec.podSets[0].name", for messages.
std::string describe_path(const DocumentPath& path);

}  // namespace kueuepp::kube::conversion
