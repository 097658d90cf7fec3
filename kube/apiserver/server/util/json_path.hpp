#pragma once

// The JSONPath subset CRD additionalPrinterColumns use: `.a.b`, `.a[0]`, `.a[*]`,
// `.a[?(@.type=='Ready')].status`.

#include <string_view>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

/// Every value `path` selects in `root` (empty when nothing matches or the path is not
/// understood).
std::vector<const json::value*> json_path_select(const json::value& root, std::string_view path);

}  // namespace kueuepp::kube::server
