// The controller's webhook server end to end, in-process, as standalone mode will use it:
// started with the controller (no registration: the caller registers it with
// webhook_url() and webhook_ca_bundle()), ready once it serves a certificate, and
// answering from the controller's watches: a LocalQueue named "default" created in the
// API server makes an unlabelled Job's review come back with that queue.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "actors/controller.hpp"
#include "core/base64.hpp"
#include "kube/apiserver/server/api_server.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/json/yaml.hpp"
#include "tests/kube/webhook/tls_test_client.hpp"

namespace kueuepp::actors {
namespace {

using namespace std::chrono_literals;
namespace kc = kube::client;

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds limit = 30s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

std::uint16_t port_of(const std::string& url) { return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1))); }

TEST(ControllerWebhooks, ServedInProcessFromTheWatches) {
  kube::server::ApiServerOptions server_options;
  server_options.listen = "127.0.0.1:0";
  server_options.fsync = false;
  server_options.crd_paths = {std::string(KUEUEPP_SOURCE_DIR) + "/deploy/crds"};
  auto server = kube::server::ApiServer::start(server_options);
  ASSERT_TRUE(server) << server.error().message;
  kc::ClientConfig config;
  config.server = (*server)->url();
  kc::ClientOptions client_options;
  client_options.qps = -1;
  auto client = kc::Client::create(config, client_options);
  ASSERT_TRUE(client);
  kc::BlockingClient api(**client);

  ControllerOptions options;
  options.webhooks.enabled = true;
  options.webhooks.listen = "127.0.0.1:0";
  options.webhooks.registration = WebhookOptions::Registration::None;
  auto controller = Controller::start(options, **client);
  ASSERT_TRUE(controller) << controller.error().message;
  const std::string url = (*controller)->webhook_url();
  ASSERT_EQ(url.rfind("https://127.0.0.1:", 0), 0u) << url;
  ASSERT_TRUE(eventually([&] { return (*controller)->not_ready_reason().empty(); }))
      << (*controller)->not_ready_reason();
  const std::string ca = (*controller)->webhook_ca_bundle();
  ASSERT_FALSE(ca.empty());

  for (const char* text : {"{apiVersion: v1, kind: Namespace, metadata: {name: team}}",
                           "{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: default, namespace: "
                           "team}, spec: {clusterQueue: cq}}"}) {
    auto doc = json::parse_yaml(text);
    ASSERT_TRUE(doc);
    kc::Object o(std::move(*doc));
    const auto* resource = kc::find_resource(o.api_version(), o.kind());
    ASSERT_NE(resource, nullptr);
    auto created = api.create(*resource, std::move(o));
    ASSERT_TRUE(created) << created.error().describe();
  }
  const std::string review = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-7",
    "kind":{"group":"batch","version":"v1","kind":"Job"},"namespace":"team","operation":"CREATE",
    "object":{"metadata":{"name":"j","namespace":"team"},"spec":{}}}})";
  std::string patch;
  ASSERT_TRUE(eventually([&] {
    kube::webhook::testing::TlsClient c(port_of(url), ca);
    if (!c.connected()) return false;
    auto a = c.post("/mutate-batch-v1-job", review);
    auto doc = json::parse(a.body);
    if (a.status != 200 || !doc) return false;
    const json::value* p = json::find_path(*doc, {"response", "patch"});
    patch = p != nullptr ? core::base64_decode(p->as_string()).value_or("") : "";
    return patch.find("queue-name") != std::string::npos;
  })) << "last patch: " << patch;
  EXPECT_NE(patch.find(R"("path":"/spec/suspend")"), std::string::npos) << patch;

  (*controller)->stop();
  EXPECT_FALSE(kube::webhook::testing::TlsClient(port_of(url), ca).connected());  // stopped with the controller
  (*client)->shutdown();
  (*server)->stop();
}

}  // namespace
}  // namespace kueuepp::actors
