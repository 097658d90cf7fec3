#pragma once

// The resource types a CustomResourceDefinition object serves: one per served version,
// each with a custom-resource strategy built from that version's schema.

#include <string>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"

namespace kueuepp::kube::server {

/// Builds the served versions of `crd`, converting between them as spec.conversion says
/// (webhooks called as `calls` says). Problems that do not stop serving (a schema that
/// does not compile) are appended to `problems`.
std::vector<ResourceTypePtr> resource_types_from_crd(const json::object& crd, const ConversionCalls& calls,
                                                     std::vector<std::string>& problems);

}  // namespace kueuepp::kube::server
