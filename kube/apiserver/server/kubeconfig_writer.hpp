#pragma once

// Writes a kubeconfig (one cluster, one user, one context, namespace "default") that
// points kubectl and kueuepp's client at the embedded server.

#include <string>

#include "core/expected.hpp"

namespace kueuepp::kube::server {

struct KubeconfigContent {
  std::string server;          ///< https://127.0.0.1:6443
  std::string ca_pem;          ///< empty for plain HTTP
  std::string bearer_token;    ///< empty: no user credentials
};

/// The kubeconfig text.
std::string render_kubeconfig(const KubeconfigContent& content);
/// Writes it atomically with mode 0600; the error names the path.
Status write_kubeconfig_file(const std::string& path, const KubeconfigContent& content);

}  // namespace kueuepp::kube::server
