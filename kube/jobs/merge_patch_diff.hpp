#pragma once

// The JSON merge patch (RFC 7386) that turns one document into another: what a caller
// sends to write only what changed. Objects are diffed member by member (a removed member
// becomes null); any other change, arrays included, is sent whole, as merge patches
// replace lists.

#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// The merge patch from `from` to `to`; `{}` when they are equal. A null inside `to`
/// cannot be expressed by a merge patch (null deletes) and is written as a deletion.
json::value merge_patch_diff(const json::value& from, const json::value& to);

}  // namespace kueuepp::kube::jobs
