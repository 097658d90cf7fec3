// The certificate manager against the embedded API server: two replicas share one
// Secret (the first makes the certificates, the second loads them), a rotation decided
// on a clock moved forward reaches the server without a restart, certificates from
// files are reloaded when they change, and a missing Secret namespace is said clearly.

#include "kube/webhook/cert_manager.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "kube/apiserver/server/api_server.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/webhook/webhook_server.hpp"
#include "tests/kube/webhook/tls_test_client.hpp"

namespace kueuepp::kube::webhook {
namespace {

using namespace std::chrono_literals;
using testing::TlsClient;
namespace kc = kube::client;

/// Waits (generously) for `done`; the manager works on its own thread.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds limit = 20s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return done();
}

std::unique_ptr<WebhookServer> serve() {
  WebhookServerOptions o;
  o.listen = "127.0.0.1:0";
  auto s = WebhookServer::start(o, [](const WebhookSpec&, AdmissionRequest r, AdmissionReply reply) { reply(allowed(r.uid)); });
  EXPECT_TRUE(s);
  return std::move(*s);
}

class CertManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kube::server::ApiServerOptions options;
    options.listen = "127.0.0.1:0";
    options.fsync = false;
    auto server = kube::server::ApiServer::start(options);
    ASSERT_TRUE(server) << server.error().message;
    api_server_ = std::move(*server);
    kc::ClientConfig config;
    config.server = api_server_->url();
    kc::ClientOptions client_options;
    client_options.qps = -1;
    auto client = kc::Client::create(config, client_options);
    ASSERT_TRUE(client) << client.error().message;
    client_ = std::move(*client);
  }
  void TearDown() override {
    if (client_) client_->shutdown();
    if (api_server_) api_server_->stop();
  }
  void create_namespace(const std::string& ns) {
    kc::BlockingClient api(*client_);
    kc::Object o;
    o.set_type("v1", "Namespace");
    o.set_name(ns);
    ASSERT_TRUE(api.create(kc::resources::kNamespace, std::move(o)));
  }
  CertManagerOptions secret_options(std::function<Clock::time_point()> clock = {}) {
    CertManagerOptions o;
    o.source = CertificateSource::Secret;
    o.registration = Registration::None;
    o.secret_namespace = "kueuepp-system";
    o.hosts = {"127.0.0.1", "kueuepp-webhook-service.kueuepp-system.svc"};
    o.clock = std::move(clock);
    o.retry_interval = 50ms;
    o.check_interval = 200ms;
    return o;
  }
  std::unique_ptr<kube::server::ApiServer> api_server_;
  std::unique_ptr<kc::Client> client_;
};

TEST_F(CertManagerTest, TwoReplicasShareTheSecretAndBothServe) {
  create_namespace("kueuepp-system");
  auto first_server = serve();
  auto second_server = serve();
  auto first = CertManager::start(secret_options(), client_.get(), *first_server);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(eventually([&] { return (*first)->not_ready_reason().empty(); })) << (*first)->not_ready_reason();
  auto second = CertManager::start(secret_options(), client_.get(), *second_server);
  ASSERT_TRUE(second);
  ASSERT_TRUE(eventually([&] { return (*second)->not_ready_reason().empty(); })) << (*second)->not_ready_reason();
  EXPECT_EQ((*first)->ca_bundle(), (*second)->ca_bundle());
  kc::BlockingClient api(*client_);
  auto secret = api.get(resources::kSecret, "kueuepp-system", "kueuepp-webhook-server-cert");
  ASSERT_TRUE(secret);
  for (const char* key : {"ca.crt", "ca.key", "tls.crt", "tls.key"}) EXPECT_NE(secret->find({"data", key}), nullptr) << key;
  for (auto* s : {first_server.get(), second_server.get()}) {
    TlsClient c(s->port(), (*first)->ca_bundle());
    EXPECT_TRUE(c.connected()) << c.handshake_error();
    EXPECT_EQ(c.peer_certificate_pem(), [&] {
      TlsClient d(first_server->port(), (*first)->ca_bundle());
      return d.peer_certificate_pem();
    }());
  }
  (*first)->stop();
  (*second)->stop();
}

TEST_F(CertManagerTest, ARotationDecidedOnTheClockReachesTheServerWithoutARestart) {
  create_namespace("kueuepp-system");
  // Certificates made 300 days ago (still valid: the serving certificate lasts a year),
  // then the clock is brought to now: 65 days are left, less than the 90 of the margin.
  // (Made on a clock in the future they would not be valid yet for the client.)
  std::atomic<std::int64_t> offset_days{-300};
  auto clock = [&] { return Clock::now() + std::chrono::hours(24 * offset_days.load()); };
  auto server = serve();
  auto manager = CertManager::start(secret_options(clock), client_.get(), *server);
  ASSERT_TRUE(manager);
  ASSERT_TRUE(eventually([&] { return (*manager)->not_ready_reason().empty(); }));
  const std::string ca = (*manager)->ca_bundle();
  TlsClient before(server->port(), ca);
  ASSERT_TRUE(before.connected());
  const std::string old_cert = before.peer_certificate_pem();

  offset_days = 0;
  (*manager)->poke();
  ASSERT_TRUE(eventually([&] {
    TlsClient c(server->port(), ca);
    return c.connected() && c.peer_certificate_pem() != old_cert;
  }));
  EXPECT_EQ((*manager)->ca_bundle(), ca);  // same CA: the webhook configurations need nothing
  auto renewed = inspect_certificate([&] {
    TlsClient c(server->port(), ca);
    return c.peer_certificate_pem();
  }());
  ASSERT_TRUE(renewed);
  EXPECT_GT(renewed->not_after, Clock::now() + std::chrono::hours(24 * 300));
  // The Secret holds the renewed certificate: a replica started now loads it.
  auto other_server = serve();
  auto other = CertManager::start(secret_options(clock), client_.get(), *other_server);
  ASSERT_TRUE(other);
  ASSERT_TRUE(eventually([&] { return (*other)->not_ready_reason().empty(); }));
  TlsClient c(other_server->port(), ca);
  EXPECT_EQ(c.peer_certificate_pem(), [&] {
    TlsClient d(server->port(), ca);
    return d.peer_certificate_pem();
  }());
}

TEST_F(CertManagerTest, AMissingNamespaceIsSaidAndNotReady) {
  auto server = serve();
  auto manager = CertManager::start(secret_options(), client_.get(), *server);
  ASSERT_TRUE(manager);
  ASSERT_TRUE(eventually([&] { return (*manager)->steps() >= 2; }));
  const std::string why = (*manager)->not_ready_reason();
  EXPECT_NE(why.find("kueuepp-system/kueuepp-webhook-server-cert"), std::string::npos) << why;
  EXPECT_FALSE(server->has_certificate());
}

TEST(CertManagerFiles, CertificatesFromFilesAreReloadedWhenTheyChange) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("kueuepp-webhook-certs-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const CertificateBundle& b) {
    std::ofstream(dir / "tls.crt") << b.cert_pem;
    std::ofstream(dir / "tls.key") << b.key_pem;
    std::ofstream(dir / "ca.crt") << b.ca_cert_pem;
  };
  auto server = serve();
  CertManagerOptions o;
  o.source = CertificateSource::Files;
  o.registration = Registration::None;
  o.cert_dir = dir.string();
  o.check_interval = 100ms;
  o.retry_interval = 50ms;
  auto manager = CertManager::start(o, nullptr, *server);
  ASSERT_TRUE(manager);
  ASSERT_TRUE(eventually([&] { return (*manager)->steps() >= 1; }));
  EXPECT_NE((*manager)->not_ready_reason().find("no tls.crt and tls.key"), std::string::npos);
  auto a = generate_bundle({{"127.0.0.1"}, Clock::now(), std::chrono::hours(240), std::chrono::hours(24)});
  auto b = generate_bundle({{"127.0.0.1"}, Clock::now(), std::chrono::hours(240), std::chrono::hours(24)});
  ASSERT_TRUE(a && b);
  write(*a);
  ASSERT_TRUE(eventually([&] { return (*manager)->not_ready_reason().empty(); }));
  EXPECT_TRUE(TlsClient(server->port(), a->ca_cert_pem).connected());
  write(*b);  // cert-manager renewed them
  ASSERT_TRUE(eventually([&] { return TlsClient(server->port(), b->ca_cert_pem).connected(); }));
  EXPECT_EQ((*manager)->ca_bundle(), b->ca_cert_pem);
  (*manager)->stop();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kueuepp::kube::webhook
