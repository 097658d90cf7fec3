#include "kube/client/kubeconfig.hpp"

#include <gtest/gtest.h>

#include <map>

#include "tests/kube/client/temp_dir.hpp"

namespace kueuepp::kube::client {
namespace {

using testing::TempDir;

// base64 of "CA-PEM", "CERT-PEM", "KEY-PEM"
constexpr const char* kCaB64 = "Q0EtUEVN";
constexpr const char* kCertB64 = "Q0VSVC1QRU0=";
constexpr const char* kKeyB64 = "S0VZLVBFTQ==";

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string full_config() {
  return std::string(R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: )") + kCaB64 + R"(
    tls-server-name: kubernetes.default
- name: insecure
  cluster:
    server: https://10.0.0.2
    insecure-skip-tls-verify: true
users:
- name: dev-user
  user:
    client-certificate-data: )" + kCertB64 + R"(
    client-key-data: )" + kKeyB64 + R"(
- name: token-user
  user:
    token: abc123
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
    namespace: team-a
- name: other
  context:
    cluster: insecure
    user: token-user
)";
}

TEST(Kubeconfig, ParsesClustersUsersContextsAndDecodesDataFields) {
  auto config = parse_kubeconfig(full_config(), "/x/config");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->current_context, "dev");
  ASSERT_EQ(config->clusters.size(), 2u);
  EXPECT_EQ(config->clusters.at("dev-cluster").certificate_authority_data, "CA-PEM");
  EXPECT_EQ(config->clusters.at("dev-cluster").tls_server_name, "kubernetes.default");
  EXPECT_TRUE(config->clusters.at("insecure").insecure_skip_tls_verify);
  EXPECT_EQ(config->users.at("dev-user").client_certificate_data, "CERT-PEM");
  EXPECT_EQ(config->users.at("dev-user").client_key_data, "KEY-PEM");
  EXPECT_EQ(config->users.at("token-user").token, "abc123");
  EXPECT_EQ(config->contexts.at("dev").namespace_name, "team-a");
}

TEST(Kubeconfig, ResolvesTheCurrentContext) {
  auto config = parse_kubeconfig(full_config(), "/x/config");
  ASSERT_TRUE(config);
  auto resolved = resolve_kubeconfig(*config, "", "kubeconfig /x/config");
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->server, "https://10.0.0.1:6443");
  EXPECT_EQ(resolved->ca_pem, "CA-PEM");
  EXPECT_EQ(resolved->client_certificate_pem, "CERT-PEM");
  EXPECT_EQ(resolved->client_key_pem, "KEY-PEM");
  EXPECT_EQ(resolved->tls_server_name, "kubernetes.default");
  EXPECT_EQ(resolved->default_namespace, "team-a");
  EXPECT_FALSE(resolved->insecure_skip_tls_verify);
  EXPECT_EQ(resolved->source, "kubeconfig /x/config context dev");
}

TEST(Kubeconfig, AnExplicitContextOverridesCurrentContext) {
  auto config = parse_kubeconfig(full_config(), "/x/config");
  ASSERT_TRUE(config);
  auto resolved = resolve_kubeconfig(*config, "other", "k");
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->server, "https://10.0.0.2");
  EXPECT_TRUE(resolved->insecure_skip_tls_verify);
  EXPECT_EQ(resolved->token, "abc123");
  EXPECT_EQ(resolved->default_namespace, "default");
  EXPECT_TRUE(resolved->client_certificate_pem.empty());
}

TEST(Kubeconfig, ReadsFileReferencesRelativeToTheKubeconfig) {
  TempDir dir;
  dir.write("certs/ca.crt", "CA FROM FILE");
  dir.write("certs/client.crt", "CERT FROM FILE");
  dir.write("certs/client.key", "KEY FROM FILE");
  dir.write("token", "file-token\n");
  const std::string path = dir.write("kube/config", R"(
current-context: c
clusters:
- name: k
  cluster: {server: "https://h:1", certificate-authority: ../certs/ca.crt}
users:
- name: u
  user: {client-certificate: ../certs/client.crt, client-key: ../certs/client.key, tokenFile: ../token}
contexts:
- name: c
  context: {cluster: k, user: u}
)");
  KubeconfigLoadOptions options;
  options.explicit_path = path;
  options.env = env_of({});
  auto resolved = load_kubeconfig(options);
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->ca_pem, "CA FROM FILE");
  EXPECT_EQ(resolved->client_certificate_pem, "CERT FROM FILE");
  EXPECT_EQ(resolved->client_key_pem, "KEY FROM FILE");
  EXPECT_EQ(resolved->token_file, dir.file("token"));
}

TEST(Kubeconfig, MergesKubeconfigFilesFirstSetterWins) {
  TempDir dir;
  const std::string a = dir.write("a", R"(
clusters:
- name: shared
  cluster: {server: "https://from-a"}
users:
- name: u
  user: {token: from-a}
)");
  const std::string b = dir.write("b", R"(
current-context: ctx
clusters:
- name: shared
  cluster: {server: "https://from-b"}
- name: only-b
  cluster: {server: "https://only-b"}
users:
- name: u
  user: {token: from-b}
contexts:
- name: ctx
  context: {cluster: shared, user: u, namespace: nb}
- name: ctx2
  context: {cluster: only-b, user: u}
)");
  const std::string c = dir.write("c", "current-context: ctx2\n");
  KubeconfigLoadOptions options;
  options.env = env_of({{"KUBECONFIG", dir.file("missing") + ":" + a + "::" + b + ":" + c},
                        {"HOME", dir.file("home")}});
  auto resolved = load_kubeconfig(options);
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->server, "https://from-a");  // a sets cluster "shared" first
  EXPECT_EQ(resolved->token, "from-a");
  EXPECT_EQ(resolved->default_namespace, "nb");  // the context comes from b
  options.context = "ctx2";
  auto second = load_kubeconfig(options);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->server, "https://only-b");
}

TEST(Kubeconfig, MergeTakesCurrentContextFromTheFirstFileThatSetsIt) {
  Kubeconfig first, second;
  second.current_context = "b";
  Kubeconfig third;
  third.current_context = "c";
  EXPECT_EQ(merge_kubeconfigs({first, second, third}).current_context, "b");
}

TEST(Kubeconfig, AnExplicitPathIgnoresKubeconfigEnv) {
  TempDir dir;
  const std::string explicit_path = dir.write("explicit", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://explicit:8080"}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  const std::string env_path = dir.write("env", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://env:8080"}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  KubeconfigLoadOptions options;
  options.explicit_path = explicit_path;
  options.env = env_of({{"KUBECONFIG", env_path}});
  auto resolved = load_kubeconfig(options);
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->server, "http://explicit:8080");
}

TEST(Kubeconfig, FallsBackToHomeKubeConfig) {
  TempDir dir;
  dir.write("home/.kube/config", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://home:1"}}]
contexts: [{name: c, context: {cluster: k}}]
)");
  KubeconfigLoadOptions options;
  options.env = env_of({{"HOME", dir.file("home")}});
  auto resolved = load_kubeconfig(options);
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->server, "http://home:1");
}

TEST(Kubeconfig, ErrorsSayWhatIsWrong) {
  auto config = parse_kubeconfig(full_config(), "/x/config");
  ASSERT_TRUE(config);
  auto missing_context = resolve_kubeconfig(*config, "nope", "k");
  ASSERT_FALSE(missing_context);
  EXPECT_NE(missing_context.error().message.find("context \"nope\" does not exist"), std::string::npos);

  auto bad_base64 = parse_kubeconfig(R"(
clusters: [{name: k, cluster: {server: "https://h", certificate-authority-data: "%%%"}}]
)", "/bad");
  ASSERT_FALSE(bad_base64);
  EXPECT_NE(bad_base64.error().message.find("certificate-authority-data"), std::string::npos);

  auto cert_without_key = parse_kubeconfig(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {client-certificate-data: Q0VSVC1QRU0=}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)", "/x");
  ASSERT_TRUE(cert_without_key);
  auto r = resolve_kubeconfig(*cert_without_key, "", "k");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("without a key"), std::string::npos);

  auto exec_only = parse_kubeconfig(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {exec: {command: aws}}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)", "/x");
  ASSERT_TRUE(exec_only);
  auto e = resolve_kubeconfig(*exec_only, "", "k");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("exec"), std::string::npos);

  auto missing_cluster = parse_kubeconfig("current-context: c\ncontexts: [{name: c, context: {cluster: gone}}]\n", "/x");
  ASSERT_TRUE(missing_cluster);
  auto mc = resolve_kubeconfig(*missing_cluster, "", "k");
  ASSERT_FALSE(mc);
  EXPECT_NE(mc.error().message.find("cluster \"gone\""), std::string::npos);

  EXPECT_FALSE(parse_kubeconfig("- a list\n", "/x"));
  EXPECT_FALSE(parse_kubeconfig("clusters: {not: a list}\n", "/x"));
  EXPECT_FALSE(parse_kubeconfig("clusters: [{cluster: {server: x}}]\n", "/x"));  // no name
  EXPECT_FALSE(parse_kubeconfig("key: [unterminated\n", "/x"));
  EXPECT_TRUE(parse_kubeconfig("", "/empty"));

  KubeconfigLoadOptions options;
  options.explicit_path = "/nonexistent/kubeconfig";
  auto unreadable = load_kubeconfig(options);
  ASSERT_FALSE(unreadable);
  EXPECT_NE(unreadable.error().message.find("/nonexistent/kubeconfig"), std::string::npos);

  KubeconfigLoadOptions nothing;
  nothing.env = env_of({});
  EXPECT_FALSE(load_kubeconfig(nothing));
}

}  // namespace
}  // namespace kueuepp::kube::client
