#pragma once

// Installs CustomResourceDefinitions from manifest files (`--crds`): files or
// directories of YAML/JSON, each document a CRD (or a List of them).

#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

/// Creates or updates every CRD found under `paths`; returns how many were installed.
/// The error names the file and what is wrong with it.
Expected<std::size_t> install_crds(ServerContext& ctx, const std::vector<std::string>& paths);

}  // namespace kueuepp::kube::server
