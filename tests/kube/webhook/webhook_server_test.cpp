// The webhook server end to end over real TLS, with a raw Beast client: a valid review,
// garbage, a huge body, a slow client, many clients at once, a handler that never
// answers, a certificate swapped while serving, TLS versions, and a prompt stop. The
// timeouts are short here and the bounds checked generous.

#include "kube/webhook/webhook_server.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "kube/webhook/cert_rotation.hpp"
#include "kube/webhook/webhook_dispatch.hpp"
#include "tests/kube/webhook/tls_test_client.hpp"
#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using testing::TlsClient;

CertificateBundle make_bundle() {
  auto b = generate_bundle({{"127.0.0.1", "localhost"}, Clock::now(), std::chrono::hours(24 * 10), std::chrono::hours(24)});
  EXPECT_TRUE(b) << (b ? "" : b.error().message);
  return *b;
}

std::string review(std::string_view uid, std::string_view job_yaml_json) {
  return fmt::format(R"({{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"uid":"{}",)"
                     R"("kind":{{"group":"batch","version":"v1","kind":"Job"}},"namespace":"team","operation":"CREATE",)"
                     R"("object":{}}}}})",
                     uid, job_yaml_json);
}

constexpr const char* kLabelledJob = R"({"metadata":{"name":"j","labels":{"kueue.x-k8s.io/queue-name":"lq"}},"spec":{}})";

json::value response_of(const std::string& body) {
  auto doc = json::parse(body);
  EXPECT_TRUE(doc) << body;
  return doc ? doc->at("response") : json::value();
}

class WebhookServerTest : public ::testing::Test {
 protected:
  void start(WebhookServerOptions options, AdmissionHandler handler = {}) {
    options.listen = "127.0.0.1:0";
    if (!handler) {
      handler = [this](const WebhookSpec& spec, AdmissionRequest request, AdmissionReply reply) {
        reply(decide(spec.kind, request, JobWebhookPolicy{}, facts_));
      };
    }
    auto server = WebhookServer::start(std::move(options), std::move(handler));
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    bundle_ = make_bundle();
    ASSERT_TRUE(server_->set_certificate(bundle_.cert_pem, bundle_.key_pem));
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  std::unique_ptr<WebhookServer> server_;
  CertificateBundle bundle_;
  testing::TableFacts facts_;
};

TEST_F(WebhookServerTest, AValidReviewIsAnsweredWithItsUidAndPatch) {
  start({});
  TlsClient c(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(c.connected()) << c.handshake_error();
  auto a = c.post("/mutate-batch-v1-job?timeout=10s", review("u-1", kLabelledJob));
  ASSERT_FALSE(a.error) << a.error.message();
  EXPECT_EQ(a.status, 200);
  auto r = response_of(a.body);
  EXPECT_EQ(r.at("uid"), "u-1");
  EXPECT_EQ(r.at("allowed"), true);
  EXPECT_EQ(r.at("patchType"), "JSONPatch");
  // The connection is kept alive for the next review.
  auto b = c.post("/validate-batch-v1-job", review("u-2", kLabelledJob));
  EXPECT_EQ(b.status, 200);
  EXPECT_EQ(response_of(b.body).at("uid"), "u-2");
  EXPECT_EQ(server_->stats().answered, 2u);
}

TEST_F(WebhookServerTest, GarbageUnknownPathsAndWrongMethodsGetClearErrors) {
  start({});
  TlsClient c(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(c.connected());
  auto garbage = c.post("/mutate-batch-v1-job", "{\"apiVersion\": [}");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_NE(garbage.body.find("malformed AdmissionReview"), std::string::npos) << garbage.body;
  auto no_uid = c.post("/mutate-batch-v1-job", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}})");
  EXPECT_EQ(no_uid.status, 400);
  auto unknown = c.post("/mutate-apps-v1-deployment", review("u", kLabelledJob));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("no webhook is served at /mutate-apps-v1-deployment"), std::string::npos);
  auto get = c.post("/mutate-batch-v1-job", "", http::verb::get);
  EXPECT_EQ(get.status, 405);
  // Still serving on the same connection.
  EXPECT_EQ(c.post("/mutate-batch-v1-job", review("u", kLabelledJob)).status, 200);
  EXPECT_EQ(server_->stats().bad_requests, 4u);
}

// The CRDs' conversion webhook: answered at /convert without the admission handler.
TEST_F(WebhookServerTest, ConversionReviewsAreAnsweredAtConvert) {
  start({}, [](const WebhookSpec&, AdmissionRequest, AdmissionReply) { FAIL() << "conversion reached the admission handler"; });
  TlsClient c(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(c.connected());
  auto a = c.post("/convert?timeout=30s", R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"c-1",)"
                                          R"("desiredAPIVersion":"kueue.x-k8s.io/v1beta2","objects":[{"apiVersion":"kueue.x-k8s.io/v1beta1",)"
                                          R"("kind":"ClusterQueue","metadata":{"name":"cq"},"spec":{"cohort":"all"}}]}})");
  ASSERT_FALSE(a.error) << a.error.message();
  EXPECT_EQ(a.status, 200);
  auto r = response_of(a.body);
  EXPECT_EQ(r.at("uid"), "c-1");
  EXPECT_EQ(r.at("result").at("status"), "Success");
  EXPECT_EQ(r.at("convertedObjects").at(0).at("spec").at("cohortName"), "all");
  auto garbage = c.post("/convert", "{");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_NE(garbage.body.find("the body is not JSON"), std::string::npos) << garbage.body;
  EXPECT_EQ(server_->stats().conversions, 1u);
  EXPECT_EQ(server_->stats().bad_requests, 1u);
}

// A list read in another version is converted in one review: /convert has a limit of
// its own, larger than the admission reviews'.
TEST_F(WebhookServerTest, AConversionReviewMayBeLargerThanAnAdmissionReview) {
  WebhookServerOptions o;
  o.max_body_bytes = 64 * 1024;
  o.max_conversion_body_bytes = 1024 * 1024;
  start(o);
  std::string objects;
  for (int i = 0; i < 2000; ++i) {
    objects += fmt::format(R"({}{{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{{"name":"cq-{}"}},"spec":{{"cohort":"c"}}}})",
                           i == 0 ? "" : ",", i);
  }
  const std::string body = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"big",)"
                           R"("desiredAPIVersion":"kueue.x-k8s.io/v1beta2","objects":[)" + objects + "]}}";
  ASSERT_GT(body.size(), o.max_body_bytes);
  TlsClient c(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(c.connected());
  auto a = c.post("/convert", body);
  ASSERT_FALSE(a.error) << a.error.message();
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(response_of(a.body).at("convertedObjects").as_array().size(), 2000u);
  // The admission paths keep theirs.
  TlsClient d(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(d.connected());
  auto refused = d.post("/mutate-batch-v1-job", body);
  if (!refused.error) {
    EXPECT_EQ(refused.status, 413);
  }
}

TEST_F(WebhookServerTest, AHugeBodyIsRefusedWithoutReadingItAll) {
  WebhookServerOptions o;
  o.max_body_bytes = 64 * 1024;
  start(o);
  TlsClient c(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(c.connected());
  std::string huge = review("u", std::string(R"({"metadata":{"name":")") + std::string(200 * 1024, 'x') + "\"}}");
  auto a = c.post("/mutate-batch-v1-job", huge);
  // The server answers 413 and closes; the client may see the answer or a reset while it
  // still writes.
  if (!a.error) {
    EXPECT_EQ(a.status, 413);
    EXPECT_NE(a.body.find("exceeds 65536 bytes"), std::string::npos);
  }
  EXPECT_EQ(server_->stats().requests, 0u);
  TlsClient d(server_->port(), bundle_.ca_cert_pem);
  EXPECT_EQ(d.post("/mutate-batch-v1-job", review("u", kLabelledJob)).status, 200);
}

TEST_F(WebhookServerTest, ASlowClientIsCutOffAfterTheReadTimeout) {
  WebhookServerOptions o;
  o.read_timeout = 300ms;
  start(o);
  TlsClient c(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(c.connected());
  boost::system::error_code ec;
  asio::write(c.stream(), asio::buffer(std::string("POST /mutate-batch-v1-job HTTP/1.1\r\nHost: x\r\n")), ec);
  ASSERT_FALSE(ec);
  const auto started = std::chrono::steady_clock::now();
  char byte = 0;
  c.stream().read_some(asio::buffer(&byte, 1), ec);  // blocks until the server gives up
  EXPECT_TRUE(ec) << "the server answered a request it never got whole";
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  // Others are served meanwhile and after.
  TlsClient d(server_->port(), bundle_.ca_cert_pem);
  EXPECT_EQ(d.post("/mutate-batch-v1-job", review("u", kLabelledJob)).status, 200);
}

TEST_F(WebhookServerTest, ManyConcurrentClientsEachGetTheirOwnAnswer) {
  WebhookServerOptions o;
  o.threads = 2;
  // Answers come from another thread, as the actor's do.
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::vector<std::pair<AdmissionRequest, AdmissionReply>> queue;
  std::thread answerer([&] {
    while (!stop) {
      std::vector<std::pair<AdmissionRequest, AdmissionReply>> batch;
      {
        std::lock_guard lock(mutex);
        batch.swap(queue);
      }
      for (auto& [req, reply] : batch) reply(allowed(req.uid));
      std::this_thread::yield();
    }
  });
  start(o, [&](const WebhookSpec&, AdmissionRequest req, AdmissionReply reply) {
    std::lock_guard lock(mutex);
    queue.emplace_back(std::move(req), std::move(reply));
  });
  constexpr int kClients = 32;
  constexpr int kEach = 10;
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      TlsClient c(server_->port(), bundle_.ca_cert_pem);
      if (!c.connected()) return;
      for (int k = 0; k < kEach; ++k) {
        std::string uid = fmt::format("c{}-{}", i, k);
        auto a = c.post("/validate-batch-v1-job", review(uid, kLabelledJob));
        if (a.status == 200 && response_of(a.body).at("uid").as_string() == uid) ++ok;
      }
    });
  }
  for (auto& t : clients) t.join();
  stop = true;
  answerer.join();
  EXPECT_EQ(ok.load(), kClients * kEach);
  EXPECT_EQ(server_->stats().connections, static_cast<std::uint64_t>(kClients));
}

TEST_F(WebhookServerTest, AHandlerThatNeverAnswersGetsA500NotAHang) {
  WebhookServerOptions o;
  o.answer_timeout = 200ms;
  std::vector<AdmissionReply> kept;  // never called until the end
  std::mutex mutex;
  start(o, [&](const WebhookSpec&, AdmissionRequest, AdmissionReply reply) {
    std::lock_guard lock(mutex);
    kept.push_back(std::move(reply));
  });
  TlsClient c(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(c.connected());
  const auto started = std::chrono::steady_clock::now();
  auto a = c.post("/mutate-batch-v1-job", review("u", kLabelledJob));
  EXPECT_EQ(a.status, 500);
  EXPECT_NE(a.body.find("did not answer in time"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_EQ(server_->stats().timeouts, 1u);
  // A late answer is dropped, not written to a connection that moved on.
  std::lock_guard lock(mutex);
  for (auto& r : kept) r(allowed("late"));
}

TEST_F(WebhookServerTest, ANewCertificateServesNewConnectionsAtOnce) {
  start({});
  TlsClient before(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(before.connected());
  CertificateBundle next = make_bundle();  // a new CA too
  ASSERT_TRUE(server_->set_certificate(next.cert_pem, next.key_pem));
  TlsClient with_new_ca(server_->port(), next.ca_cert_pem);
  EXPECT_TRUE(with_new_ca.connected()) << with_new_ca.handshake_error();
  TlsClient with_old_ca(server_->port(), bundle_.ca_cert_pem);
  EXPECT_FALSE(with_old_ca.connected());
  // The connection made before keeps working.
  EXPECT_EQ(before.post("/mutate-batch-v1-job", review("u", kLabelledJob)).status, 200);
  // A certificate that does not load leaves the current one.
  EXPECT_FALSE(server_->set_certificate(next.cert_pem, bundle_.key_pem));
  TlsClient still(server_->port(), next.ca_cert_pem);
  EXPECT_TRUE(still.connected());
}

TEST_F(WebhookServerTest, OnlyTls12AndTls13) {
  start({});
  TlsClient tls13(server_->port(), bundle_.ca_cert_pem, TLS1_3_VERSION);
  EXPECT_TRUE(tls13.connected()) << tls13.handshake_error();
  TlsClient tls12(server_->port(), bundle_.ca_cert_pem, TLS1_2_VERSION);
  EXPECT_TRUE(tls12.connected()) << tls12.handshake_error();
  TlsClient tls11(server_->port(), bundle_.ca_cert_pem, TLS1_1_VERSION);
  EXPECT_FALSE(tls11.connected());
}

TEST(WebhookServer, NoCertificateNoService) {
  WebhookServerOptions o;
  o.listen = "127.0.0.1:0";
  auto server = WebhookServer::start(o, [](const WebhookSpec&, AdmissionRequest r, AdmissionReply reply) {
    reply(allowed(r.uid));
  });
  ASSERT_TRUE(server);
  EXPECT_FALSE((*server)->has_certificate());
  CertificateBundle b = make_bundle();
  TlsClient c((*server)->port(), b.ca_cert_pem);
  EXPECT_FALSE(c.connected());
  EXPECT_EQ((*server)->stats().connections_refused, 1u);
  EXPECT_FALSE(WebhookServer::start(WebhookServerOptions{"nonsense"}, {}));
  EXPECT_FALSE(WebhookServer::start(WebhookServerOptions{"127.0.0.1:99999"}, {}));
}

TEST_F(WebhookServerTest, StopIsPromptWithIdleConnectionsAndUnansweredRequests) {
  WebhookServerOptions o;
  o.stop_grace = 200ms;
  o.answer_timeout = 30s;
  start(o, [](const WebhookSpec&, AdmissionRequest, AdmissionReply) {});
  TlsClient idle(server_->port(), bundle_.ca_cert_pem);
  ASSERT_TRUE(idle.connected());
  std::thread waiting([&] {
    TlsClient c(server_->port(), bundle_.ca_cert_pem);
    auto a = c.post("/mutate-batch-v1-job", review("u", kLabelledJob));
    EXPECT_TRUE(a.error || a.status != 200);
  });
  while (server_->stats().requests == 0) std::this_thread::sleep_for(5ms);
  const auto started = std::chrono::steady_clock::now();
  server_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
  waiting.join();
  server_.reset();
}

}  // namespace
}  // namespace kueuepp::kube::webhook
