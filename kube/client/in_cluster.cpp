#include "kube/client/in_cluster.hpp"

#include "kube/client/detail/files.hpp"

namespace kueuepp::kube::client {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && (s[start] == ' ' || s[start] == '\n')) ++start;
  return s.substr(start);
}

}  // namespace

bool running_in_cluster(const EnvLookup& env) {
  auto host = env("KUBERNETES_SERVICE_HOST");
  auto port = env("KUBERNETES_SERVICE_PORT");
  return host && !host->empty() && port && !port->empty();
}

Expected<ClientConfig> in_cluster_config(const InClusterOptions& options) {
  auto host = options.env("KUBERNETES_SERVICE_HOST");
  auto port = options.env("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty()) {
    return fail("not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                "must be set (pass --kubeconfig when running outside a pod)");
  }
  ClientConfig config;
  config.source = "in-cluster service account " + options.service_account_dir;
  const bool ipv6 = host->find(':') != std::string::npos;
  config.server = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;

  const std::string dir = options.service_account_dir;
  config.token_file = dir + "/token";
  auto token = detail::read_file(config.token_file);
  if (!token) {
    return fail("in-cluster configuration: cannot read the service-account token: " +
                token.error().message + " (is automountServiceAccountToken disabled?)");
  }
  config.token = trim(std::move(*token));
  auto ca = detail::read_file(dir + "/ca.crt");
  if (!ca) {
    return fail("in-cluster configuration: cannot read the cluster CA: " + ca.error().message);
  }
  config.ca_pem = std::move(*ca);
  // The namespace file is optional in client-go; default stays "default".
  if (auto ns = detail::read_file(dir + "/namespace"); ns && !trim(*ns).empty()) {
    config.default_namespace = trim(std::move(*ns));
  }
  return config;
}

Expected<ClientConfig> load_client_config(const ConfigLoadOptions& options) {
  KubeconfigLoadOptions kubeconfig;
  kubeconfig.explicit_path = options.kubeconfig_path;
  kubeconfig.context = options.context;
  kubeconfig.env = options.in_cluster.env;
  if (!options.kubeconfig_path.empty()) return load_kubeconfig(kubeconfig);
  if (auto env = options.in_cluster.env("KUBECONFIG"); env && !env->empty()) {
    return load_kubeconfig(kubeconfig);
  }
  if (running_in_cluster(options.in_cluster.env)) return in_cluster_config(options.in_cluster);
  return load_kubeconfig(kubeconfig);
}

}  // namespace kueuepp::kube::client
