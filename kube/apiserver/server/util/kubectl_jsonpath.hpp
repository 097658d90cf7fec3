#pragma once

// Kubernetes' JSONPath (k8s.io/client-go/util/jsonpath, `kubectl -o jsonpath`), the
// subset CRD additionalPrinterColumns use: `.a.b`, `.a[0]`, `.a[*]`,
// `.a[?(@.type=='Ready')].status`. Not the conformance traces' path patterns
// (`a.b\.c.*`, `**`: kube/apiserver/conformance/trace_path.hpp), a language of their own.

#include <string_view>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

/// Every value `path` selects in `root` (empty when nothing matches or the path is not
/// understood).
std::vector<const json::value*> kubectl_jsonpath_select(const json::value& root, std::string_view path);

}  // namespace kueuepp::kube::server
