// Client-certificate authentication (--client-ca-file) over real HTTPS: a certificate the
// client CA signed is the user of its CN in the groups of its O entries, authorized by
// RBAC (system:masters by its group); one the CA did not sign is no one (401) unless the
// request authenticates otherwise; SelfSubjectReview (`kubectl auth whoami`) says who the
// server takes the requester for; and kubectl with a client-certificate kubeconfig works.

#include <array>
#include <cstdio>
#include <fstream>

#include <sys/wait.h>

#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/json/json.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"
#include "tests/kube/tls/test_certificates.hpp"

namespace kueuepp::kube::server::testing {
namespace {

namespace kc = kueuepp::kube::client;
using kube::tls::testing::KeyPair;
using kube::tls::testing::TestCa;

constexpr std::string_view kMasterToken = "master-token";
constexpr std::string_view kRbac = "/apis/rbac.authorization.k8s.io/v1";

std::pair<int, std::string> run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, out};
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  int rc = ::pclose(pipe);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

std::string username_of(const json::value& review) {
  const json::value* status = json::find(review, "status");
  const json::value* info = status != nullptr ? json::find(*status, "userInfo") : nullptr;
  const json::value* name = info != nullptr ? json::find(*info, "username") : nullptr;
  return name != nullptr && name->is_string() ? std::string(name->get_string()) : std::string("<none>");
}

const TestCa& client_ca() {
  static const TestCa ca("kueuepp-test-client-ca");
  return ca;
}

class ClientCertificates : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    std::ofstream(dir_.file("client-ca.crt")) << client_ca().pem();
    ApiServerOptions o = test_options();
    o.tls = true;
    o.bearer_token = std::string(kMasterToken);
    o.client_ca_file = dir_.file("client-ca.crt");
    return o;
  }

  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    auto master = client_for(std::nullopt, kMasterToken);
    ASSERT_TRUE(master);
    for (const char* ns : {"team", "other"}) ASSERT_EQ(post(*master, "/api/v1/namespaces", json::dump(name_space(ns))), 201);
    ASSERT_EQ(post(*master, std::string(kRbac) + "/namespaces/team/roles",
                   R"({"metadata": {"name": "ns-reader"},
                       "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]})"),
              201);
    // The binding names the group, so the certificate's O entry is what grants it.
    ASSERT_EQ(post(*master, std::string(kRbac) + "/namespaces/team/rolebindings",
                   R"({"metadata": {"name": "devs-read"},
                       "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "ns-reader"},
                       "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "devs"}]})"),
              201);
  }

  std::unique_ptr<kc::Client> client_for(const std::optional<KeyPair>& certificate, std::string_view token = {}) {
    kc::ClientConfig config;
    config.server = server().url();
    config.ca_pem = server().ca_certificate_pem();
    config.token = std::string(token);
    if (certificate) {
      config.client_certificate_pem = certificate->cert_pem;
      config.client_key_pem = certificate->key_pem;
    }
    config.source = "test";
    kc::ClientOptions options;
    options.qps = -1;
    options.retry.max_retries = 0;
    options.request_timeout = std::chrono::seconds(10);
    auto client = kc::Client::create(std::move(config), options);
    EXPECT_TRUE(client) << client.error().message;
    return client ? std::move(*client) : nullptr;
  }

  static kc::HttpResponse send(kc::Client& client, std::string method, std::string target, std::string body = {}) {
    kc::HttpRequest req{std::move(method), std::move(target), {{"Content-Type", "application/json"}, {"Accept", "application/json"}},
                        body.empty() ? std::nullopt : std::optional<std::string>(std::move(body))};
    auto answer = kc::BlockingClient(client).raw(std::move(req));
    EXPECT_TRUE(answer) << answer.error().describe();
    return answer ? *answer : kc::HttpResponse{};
  }
  static int post(kc::Client& client, std::string target, std::string body) {
    return send(client, "POST", std::move(target), std::move(body)).status;
  }
  static json::value whoami(kc::Client& client) {
    auto answer = send(client, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                       R"({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})");
    EXPECT_EQ(answer.status, 201) << answer.body;
    auto doc = json::parse(answer.body);
    return doc ? *doc : json::value();
  }

  TempDir dir_;
};

TEST_F(ClientCertificates, ACertificateIsTheUserOfItsCommonNameInTheGroupsOfItsOrganizations) {
  auto alice = client_for(client_ca().issue("alice", false, {"devs"}));
  ASSERT_TRUE(alice);
  json::value me = whoami(*alice);
  EXPECT_EQ(json::dump(me), json::dump(*json::parse(R"({"apiVersion": "authentication.k8s.io/v1",
      "kind": "SelfSubjectReview", "metadata": {"creationTimestamp": null},
      "status": {"userInfo": {"username": "alice", "groups": ["devs", "system:authenticated"]}}})")));

  // RBAC sees the group: the binding to "devs" lets alice read ConfigMaps in team only.
  EXPECT_EQ(send(*alice, "GET", "/api/v1/namespaces/team/configmaps").status, 200);
  auto refused = send(*alice, "GET", "/api/v1/namespaces/other/configmaps");
  EXPECT_EQ(refused.status, 403);
  EXPECT_NE(refused.body.find(R"(User \"alice\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"other\")"),
            std::string::npos)
      << refused.body;
}

TEST_F(ClientCertificates, AMastersCertificateMayDoAnything) {
  auto admin = client_for(client_ca().issue("kubernetes-admin", false, {"system:masters"}));
  ASSERT_TRUE(admin);
  EXPECT_EQ(send(*admin, "GET", "/api/v1/namespaces/other/configmaps").status, 200);
  EXPECT_EQ(post(*admin, "/api/v1/namespaces", json::dump(name_space("made-by-admin"))), 201);
}

TEST_F(ClientCertificates, ACertificateOfAnotherCaIsNoOne) {
  TestCa stranger("stranger-ca");
  auto mallory = client_for(stranger.issue("mallory", false, {"system:masters"}));
  ASSERT_TRUE(mallory);
  auto answer = send(*mallory, "GET", "/api/v1/namespaces/other/configmaps");
  EXPECT_EQ(answer.status, 401) << answer.body;
  // A request that carries a good token beside an untrusted certificate is the token's.
  auto with_token = client_for(stranger.issue("mallory"), kMasterToken);
  ASSERT_TRUE(with_token);
  EXPECT_EQ(username_of(whoami(*with_token)), "kueuepp");
}

TEST_F(ClientCertificates, AServingCertificateDoesNotAuthenticateAClient) {
  auto server_cert = client_for(client_ca().issue("127.0.0.1", true, {"system:masters"}));
  ASSERT_TRUE(server_cert);
  EXPECT_EQ(send(*server_cert, "GET", "/api/v1/namespaces").status, 401);
}

TEST_F(ClientCertificates, KubectlWithAClientCertificateKubeconfig) {
  if (run("command -v kubectl >/dev/null 2>&1").first != 0) GTEST_SKIP() << "kubectl is not installed";
  KeyPair alice = client_ca().issue("alice", false, {"devs"});
  std::ofstream(dir_.file("ca.crt")) << server().ca_certificate_pem();
  std::ofstream(dir_.file("alice.crt")) << alice.cert_pem;
  std::ofstream(dir_.file("alice.key")) << alice.key_pem;
  std::string kubectl = "kubectl --server " + server().url() + " --certificate-authority " + dir_.file("ca.crt") +
                        " --client-certificate " + dir_.file("alice.crt") + " --client-key " + dir_.file("alice.key") +
                        " --cache-dir " + dir_.file("cache") + " --request-timeout=10s ";
  auto [rc, out] = run(kubectl + "auth whoami -o jsonpath='{.status.userInfo.username} {.status.userInfo.groups}' 2>&1");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, R"(alice ["devs","system:authenticated"])");
  auto [rc2, out2] = run(kubectl + "get configmaps -n team -o name 2>&1");
  EXPECT_EQ(rc2, 0) << out2;
  auto [rc3, out3] = run(kubectl + "get configmaps -n other 2>&1");
  EXPECT_NE(rc3, 0) << out3;
  EXPECT_NE(out3.find(R"(User "alice" cannot list resource "configmaps")"), std::string::npos) << out3;
}

class ClientCaFile : public ServerTest {
 protected:
  void SetUp() override {}  // each test starts its own server
};

TEST_F(ClientCaFile, AMissingOrEmptyBundleStopsTheStartWithTheReason) {
  TempDir dir;
  ApiServerOptions o = test_options();
  o.tls = true;
  o.client_ca_file = dir.file("missing.crt");
  auto missing = ApiServer::start(o);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("cannot read --client-ca-file"), std::string::npos) << missing.error().message;

  std::ofstream(dir.file("empty.crt")) << "not a certificate\n";
  o.client_ca_file = dir.file("empty.crt");
  auto empty = ApiServer::start(o);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("holds no PEM certificate"), std::string::npos) << empty.error().message;

  std::ofstream(dir.file("ca.crt")) << client_ca().pem();
  o.client_ca_file = dir.file("ca.crt");
  o.tls = false;
  auto plain = ApiServer::start(o);
  ASSERT_FALSE(plain);
  EXPECT_NE(plain.error().message.find("--client-ca-file needs TLS"), std::string::npos) << plain.error().message;
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
