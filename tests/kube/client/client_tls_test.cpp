// TLS: server verification against the configured CA (and the server name), client
// certificates, bearer tokens, insecure-skip-tls-verify, keep-alive over TLS.

#include <gtest/gtest.h>

#include "tests/kube/client/client_fixture.hpp"
#include "tests/kube/client/support/test_pki.hpp"

namespace kueuepp::kube::client {
namespace {

using namespace testing;
using resources::kJob;

class ClientTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = new TestPki(make_test_pki());
    other_pki_ = new TestPki(make_test_pki("some-other-ca"));
  }
  static void TearDownTestSuite() {
    delete pki_;
    delete other_pki_;
  }

  std::unique_ptr<TestServer> start_server(bool require_client_cert) {
    TestTlsOptions tls{pki_->server.cert_pem, pki_->server.key_pem,
                       require_client_cert ? pki_->ca.cert_pem : std::string()};
    return TestServer::start(
        [](const TestRequest& r) {
          return TestResponse::json(200, R"({"kind":"Job","metadata":{"name":")" +
                                             (r.client_cert_cn.empty() ? std::string("anonymous") : r.client_cert_cn) +
                                             R"(","annotations":{"auth":")" + r.header("Authorization") + R"("}}})");
        },
        tls);
  }

  static ClientOptions no_retries() {
    ClientOptions options = fast_options();
    options.retry.max_retries = 0;
    return options;
  }

  static TestPki* pki_;
  static TestPki* other_pki_;
};

TestPki* ClientTls::pki_ = nullptr;
TestPki* ClientTls::other_pki_ = nullptr;

TEST_F(ClientTls, VerifiesTheServerAgainstTheConfiguredCaAndSendsTheToken) {
  auto server = start_server(false);
  ClientConfig config;
  config.ca_pem = pki_->ca.cert_pem;
  config.token = "tls-token";
  auto client = make_client(server->url(), no_retries(), config);
  BlockingClient blocking(*client);
  auto job = blocking.get(kJob, "ns", "j");
  ASSERT_TRUE(job) << job.error().describe();
  EXPECT_EQ(job->annotation("auth"), "Bearer tls-token");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(blocking.get(kJob, "ns", "j"));
  EXPECT_EQ(server->connections_accepted(), 1);  // keep-alive over TLS
}

TEST_F(ClientTls, RejectsAServerSignedByAnotherCa) {
  auto server = start_server(false);
  ClientConfig config;
  config.ca_pem = other_pki_->ca.cert_pem;
  auto client = make_client(server->url(), no_retries(), config);
  auto job = BlockingClient(*client).get(kJob, "ns", "j");
  ASSERT_FALSE(job);
  EXPECT_EQ(job.error().kind, ApiError::Kind::Transport);
  EXPECT_TRUE(job.error().not_sent);
  EXPECT_NE(job.error().message.find("TLS handshake"), std::string::npos) << job.error().message;
  EXPECT_NE(job.error().message.find("certificate verify failed"), std::string::npos) << job.error().message;
}

TEST_F(ClientTls, VerificationIsOnByDefault) {
  auto server = start_server(false);
  auto client = make_client(server->url(), no_retries());  // system roots do not know our CA
  EXPECT_FALSE(BlockingClient(*client).get(kJob, "ns", "j"));
}

TEST_F(ClientTls, InsecureSkipTlsVerifyAcceptsAnyServer) {
  auto server = start_server(false);
  ClientConfig config;
  config.insecure_skip_tls_verify = true;
  auto client = make_client(server->url(), no_retries(), config);
  auto job = BlockingClient(*client).get(kJob, "ns", "j");
  ASSERT_TRUE(job) << job.error().describe();
}

TEST_F(ClientTls, ChecksTheServerNameOrTlsServerName) {
  auto server = start_server(false);
  ClientConfig config;
  config.ca_pem = pki_->ca.cert_pem;
  config.tls_server_name = "localhost";  // in the certificate's SAN
  auto good = make_client(server->url(), no_retries(), config);
  auto ok = BlockingClient(*good).get(kJob, "ns", "j");
  ASSERT_TRUE(ok) << ok.error().describe();

  config.tls_server_name = "kubernetes.default.svc";  // not in the SAN
  auto bad = make_client(server->url(), no_retries(), config);
  auto rejected = BlockingClient(*bad).get(kJob, "ns", "j");
  ASSERT_FALSE(rejected);
  EXPECT_NE(rejected.error().message.find("kubernetes.default.svc"), std::string::npos);
}

TEST_F(ClientTls, PresentsTheClientCertificate) {
  auto server = start_server(true);
  ClientConfig config;
  config.ca_pem = pki_->ca.cert_pem;
  config.client_certificate_pem = pki_->client.cert_pem;
  config.client_key_pem = pki_->client.key_pem;
  auto client = make_client(server->url(), no_retries(), config);
  auto job = BlockingClient(*client).get(kJob, "ns", "j");
  ASSERT_TRUE(job) << job.error().describe();
  EXPECT_EQ(job->name(), "kueuepp-test-user");
  EXPECT_EQ(job->annotation("auth"), "");  // no token configured: none sent
}

TEST_F(ClientTls, AServerRequiringClientCertsRejectsClientsWithout) {
  auto server = start_server(true);
  ClientConfig config;
  config.ca_pem = pki_->ca.cert_pem;
  auto client = make_client(server->url(), no_retries(), config);
  auto job = BlockingClient(*client).get(kJob, "ns", "j");
  ASSERT_FALSE(job);
  EXPECT_EQ(job.error().kind, ApiError::Kind::Transport);
}

TEST_F(ClientTls, RejectsAClientKeyThatDoesNotMatch) {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";
  config.source = "kubeconfig x";
  config.client_certificate_pem = pki_->client.cert_pem;
  config.client_key_pem = other_pki_->client.key_pem;
  auto client = Client::create(config);
  ASSERT_FALSE(client);
  EXPECT_NE(client.error().message.find("client key"), std::string::npos);
}

}  // namespace
}  // namespace kueuepp::kube::client
