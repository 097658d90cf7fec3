#pragma once

// In-cluster configuration: the API server from KUBERNETES_SERVICE_HOST/PORT and the
// pod's service account (token, CA, namespace) mounted under
// /var/run/secrets/kubernetes.io/serviceaccount/. The token rotates, so the client
// re-reads the file (ClientConfig::token_file) instead of caching it.

#include <string>

#include "core/expected.hpp"
#include "kube/client/client_config.hpp"
#include "kube/client/kubeconfig.hpp"

namespace kueuepp::kube::client {

inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

struct InClusterOptions {
  /// Overridable for tests.
  std::string service_account_dir = kServiceAccountDir;
  EnvLookup env = process_environment();
};

/// True when KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are set.
bool running_in_cluster(const EnvLookup& env);

/// The in-cluster ClientConfig; the error says which variable or file is missing.
Expected<ClientConfig> in_cluster_config(const InClusterOptions& options = {});

struct ConfigLoadOptions {
  std::string kubeconfig_path;  ///< --kubeconfig
  std::string context;          ///< --context
  InClusterOptions in_cluster;
};

/// controller-runtime's order: --kubeconfig; else KUBECONFIG; else in-cluster; else
/// $HOME/.kube/config.
Expected<ClientConfig> load_client_config(const ConfigLoadOptions& options);

}  // namespace kueuepp::kube::client
