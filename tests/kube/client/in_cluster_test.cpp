#include "kube/client/in_cluster.hpp"

#include <gtest/gtest.h>

#include <map>

#include "tests/kube/client/temp_dir.hpp"

namespace kueuepp::kube::client {
namespace {

using testing::TempDir;

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

void write_service_account(const TempDir& dir) {
  dir.write("sa/token", "sa-token\n");
  dir.write("sa/ca.crt", "CLUSTER CA");
  dir.write("sa/namespace", "kueue-system\n");
}

TEST(InCluster, BuildsTheConfigFromEnvironmentAndServiceAccount) {
  TempDir dir;
  write_service_account(dir);
  InClusterOptions options;
  options.service_account_dir = dir.file("sa");
  options.env = env_of({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  auto config = in_cluster_config(options);
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->token, "sa-token");
  EXPECT_EQ(config->token_file, dir.file("sa") + "/token");
  EXPECT_EQ(config->ca_pem, "CLUSTER CA");
  EXPECT_EQ(config->default_namespace, "kueue-system");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
}

TEST(InCluster, BracketsIpv6Hosts) {
  TempDir dir;
  write_service_account(dir);
  InClusterOptions options;
  options.service_account_dir = dir.file("sa");
  options.env = env_of({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}});
  auto config = in_cluster_config(options);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->server, "https://[fd00::1]:6443");
  auto endpoint = parse_server_url(config->server);
  ASSERT_TRUE(endpoint);
  EXPECT_EQ(endpoint->host, "fd00::1");
  EXPECT_EQ(endpoint->port, 6443);
}

TEST(InCluster, TheNamespaceFileIsOptional) {
  TempDir dir;
  dir.write("sa/token", "t");
  dir.write("sa/ca.crt", "ca");
  InClusterOptions options;
  options.service_account_dir = dir.file("sa");
  options.env = env_of({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}});
  auto config = in_cluster_config(options);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->default_namespace, "default");
}

TEST(InCluster, ErrorsNameWhatIsMissing) {
  TempDir dir;
  InClusterOptions options;
  options.service_account_dir = dir.file("sa");
  options.env = env_of({});
  auto no_env = in_cluster_config(options);
  ASSERT_FALSE(no_env);
  EXPECT_NE(no_env.error().message.find("KUBERNETES_SERVICE_HOST"), std::string::npos);

  options.env = env_of({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}});
  auto no_token = in_cluster_config(options);
  ASSERT_FALSE(no_token);
  EXPECT_NE(no_token.error().message.find("token"), std::string::npos);

  dir.write("sa/token", "t");
  auto no_ca = in_cluster_config(options);
  ASSERT_FALSE(no_ca);
  EXPECT_NE(no_ca.error().message.find("CA"), std::string::npos);
}

TEST(ConfigLoading, FollowsControllerRuntimeOrder) {
  TempDir dir;
  write_service_account(dir);
  const std::string kubeconfig = dir.write("kubeconfig", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://from-kubeconfig:1"}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  dir.write("home/.kube/config", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://from-home:1"}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  std::map<std::string, std::string> vars = {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                             {"KUBERNETES_SERVICE_PORT", "443"},
                                             {"HOME", dir.file("home")}};
  ConfigLoadOptions options;
  options.in_cluster.service_account_dir = dir.file("sa");

  // In a pod, without flags or KUBECONFIG: in-cluster (not $HOME).
  options.in_cluster.env = env_of(vars);
  auto in_pod = load_client_config(options);
  ASSERT_TRUE(in_pod) << in_pod.error().message;
  EXPECT_EQ(in_pod->server, "https://10.0.0.1:443");

  // KUBECONFIG beats in-cluster.
  vars["KUBECONFIG"] = kubeconfig;
  options.in_cluster.env = env_of(vars);
  auto with_env = load_client_config(options);
  ASSERT_TRUE(with_env);
  EXPECT_EQ(with_env->server, "http://from-kubeconfig:1");

  // --kubeconfig beats everything.
  options.kubeconfig_path = dir.file("home/.kube/config");
  auto explicit_path = load_client_config(options);
  ASSERT_TRUE(explicit_path);
  EXPECT_EQ(explicit_path->server, "http://from-home:1");

  // Outside a pod, nothing set: $HOME/.kube/config.
  options.kubeconfig_path.clear();
  options.in_cluster.env = env_of({{"HOME", dir.file("home")}});
  auto home = load_client_config(options);
  ASSERT_TRUE(home);
  EXPECT_EQ(home->server, "http://from-home:1");
}

}  // namespace
}  // namespace kueuepp::kube::client
