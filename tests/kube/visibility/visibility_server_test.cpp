// The visibility API over real HTTPS: the front proxy's client certificate (trusted,
// from another CA, missing, a CN not allowed), bearer tokens, the authorizer's answer,
// bad page options and unknown queues, with fakes for the reviews and the queues.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/visibility/visibility_server.hpp"
#include "tests/kube/tls/test_certificates.hpp"

namespace kueuepp::kube::visibility {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

/// Allows the users it was told to, for the questions it was told to.
class FakeAuthorizer : public auth::Authorizer {
 public:
  void allow(const std::string& user, const std::string& resource) {
    std::lock_guard lock(mutex_);
    allowed_[user].push_back(resource);
  }
  void authorize(const auth::ResourceAttributes& a, Callback done) override {
    bool ok = false;
    {
      std::lock_guard lock(mutex_);
      asked.push_back(a);
      for (const auto& r : allowed_[a.user.name]) ok = ok || r == a.resource + "/" + a.subresource;
    }
    done(auth::AuthorizationDecision{ok, ""});
  }
  std::vector<auth::ResourceAttributes> asked;

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<std::string>> allowed_;
};

class FakeTokens : public auth::TokenAuthenticator {
 public:
  void authenticate(const std::string& token, Callback done) override {
    if (token == "good-token") {
      done(std::optional<auth::UserInfo>(auth::UserInfo{"token-user", "", {"system:authenticated"}, {}}));
    } else {
      done(std::optional<auth::UserInfo>{});
    }
  }
};

/// ClusterQueue "cq" holds three pending workloads of default/lq; LocalQueue
/// default/lq points to it.
class FakeQueues : public PendingWorkloadsSource {
 public:
  void pending_workloads(PendingWorkloadsQuery q, Callback done) override {
    std::vector<core::QueuedWorkloadRef> order(3, core::QueuedWorkloadRef{"default", "lq"});
    PendingWorkloadsResult r;
    std::vector<core::PagePosition> page;
    if (q.local_queue.empty()) {
      r.found = q.cluster_queue == "cq";
      if (r.found) page = core::cluster_queue_page(order, q.page);
    } else {
      r.found = q.ns == "default" && q.local_queue == "lq";
      if (r.found) page = core::local_queue_page(order, q.ns, q.local_queue, q.page);
    }
    for (const auto& p : page) {
      PendingWorkloadItem item;
      item.name = "wl-" + std::to_string(p.index);
      item.ns = "default";
      item.local_queue = "lq";
      item.position_in_cluster_queue = p.in_cluster_queue;
      item.position_in_local_queue = p.in_local_queue;
      r.items.push_back(item);
    }
    done(std::move(r));
  }
  void what_if(WhatIfQuery q, WhatIfCallback done) override {
    {
      std::lock_guard lock(mutex_);
      asked_what_if.push_back(q);
      if (hold_what_ifs) {
        held_.push_back([this, q = std::move(q), done = std::move(done)]() mutable { answer(q, std::move(done)); });
        return;
      }
    }
    answer(q, std::move(done));
  }
  /// Held questions are answered only by release_held() (on the caller's thread).
  std::atomic<bool> hold_what_ifs = false;
  std::size_t held() {
    std::lock_guard lock(mutex_);
    return held_.size();
  }
  void release_held() {
    std::vector<std::function<void()>> held;
    {
      std::lock_guard lock(mutex_);
      held.swap(held_);
    }
    for (auto& answer : held) answer();
  }
  std::vector<WhatIfQuery> asked_what_if;

 private:
  void answer(const WhatIfQuery& q, WhatIfCallback done) {
    WhatIfResult r;
    if (q.ns != "default" || q.local_queue != "lq") {
      r.kind = WhatIfResult::Kind::LocalQueueNotFound;
    } else if (q.body.find("\"kind\"") == std::string::npos) {
      r.kind = WhatIfResult::Kind::Invalid;
      r.message = "the body is not a Workload or a batch/v1 Job";
    } else {
      r.answer.workload = "default/asked";
      r.answer.cluster_queue = "cq";
      r.answer.outcome = core::WhatIfAnswer::Outcome::Pending;
      r.answer.pending = {"Pending", "waits"};
      r.answer.position_in_cluster_queue = 3;
    }
    done(std::move(r));
  }
  std::mutex mutex_;
  std::vector<std::function<void()>> held_;
};

struct Reply {
  int status = 0;
  std::string retry_after;  ///< the Retry-After header
  std::string body;
  json::value doc;
};

class VisibilityServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    authorizer_ = std::make_shared<FakeAuthorizer>();
    queues_ = std::make_shared<FakeQueues>();
    handler_ = std::make_shared<VisibilityHandler>(queues_, authorizer_,
                                                   std::make_shared<FakeTokens>());
    auth::RequestHeaderConfig config;
    config.client_ca_pem = proxy_ca_.pem();
    config.allowed_names = {"front-proxy-client"};
    handler_->set_request_header_config(config);
    VisibilityServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server = VisibilityServer::start(options, [h = handler_](IncomingRequest r, visibility::Reply reply) {
      h->handle(std::move(r), std::move(reply));
    });
    ASSERT_TRUE(server.has_value()) << server.error().message;
    server_ = std::move(*server);
    auto serving = serving_ca_.issue("visibility", true);
    ASSERT_TRUE(server_->set_certificate(serving.cert_pem, serving.key_pem));
  }

  /// GET `target` over a new TLS connection, presenting `client` if given.
  Reply get(const std::string& target, const std::optional<tls::testing::KeyPair>& client,
            const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    return send(bhttp::verb::get, target, "", client, headers);
  }

  /// `method` `target` with `body` over a new TLS connection, presenting `client` if given.
  Reply send(bhttp::verb method, const std::string& target, const std::string& body,
             const std::optional<tls::testing::KeyPair>& client,
             const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    asio::io_context io;
    ssl::context ctx(ssl::context::tls_client);
    // As Kueue's APIService (insecureSkipTLSVerify): the server is not verified.
    ctx.set_verify_mode(ssl::verify_none);
    if (client) {
      ctx.use_certificate_chain(asio::buffer(client->cert_pem));
      ctx.use_private_key(asio::buffer(client->key_pem), ssl::context::pem);
    }
    ssl::stream<tcp::socket> stream(io, ctx);
    stream.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->port()));
    stream.handshake(ssl::stream_base::client);
    bhttp::request<bhttp::string_body> req{method, target, 11};
    req.set(bhttp::field::host, "127.0.0.1");
    if (!body.empty()) {
      req.set(bhttp::field::content_type, "application/json");
      req.body() = body;
      req.prepare_payload();
    }
    for (const auto& [k, v] : headers) req.insert(k, v);
    bhttp::write(stream, req);
    boost::beast::flat_buffer buffer;
    bhttp::response<bhttp::string_body> res;
    bhttp::read(stream, buffer, res);
    Reply r;
    r.status = static_cast<int>(res.result_int());
    r.retry_after = std::string(res[bhttp::field::retry_after]);
    r.body = res.body();
    if (auto doc = json::parse(r.body)) r.doc = *doc;
    return r;
  }

  tls::testing::KeyPair proxy_cert(const std::string& cn = "front-proxy-client") { return proxy_ca_.issue(cn); }

  static constexpr const char* kCq = "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/pendingworkloads";
  static constexpr const char* kLq =
      "/apis/visibility.kueue.x-k8s.io/v1beta1/namespaces/default/localqueues/lq/pendingworkloads";

  tls::testing::TestCa proxy_ca_{"front-proxy-ca"};
  tls::testing::TestCa serving_ca_{"serving-ca"};
  tls::testing::TestCa other_ca_{"other-ca"};
  std::shared_ptr<FakeAuthorizer> authorizer_;
  std::shared_ptr<FakeQueues> queues_;
  std::shared_ptr<VisibilityHandler> handler_;
  std::unique_ptr<VisibilityServer> server_;
};

const std::vector<std::pair<std::string, std::string>> kAlice{{"X-Remote-User", "alice"},
                                                              {"X-Remote-Group", "team-a"}};

TEST_F(VisibilityServerTest, TheFrontProxysUserIsAuthorizedAndServed) {
  authorizer_->allow("alice", "clusterqueues/pendingworkloads");
  Reply r = get(kCq, proxy_cert(), kAlice);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.doc.at("kind"), "PendingWorkloadsSummary");
  const auto& items = r.doc.at("items").as_array();
  ASSERT_EQ(items.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(items[static_cast<std::size_t>(i)].at("positionInClusterQueue"), i);
  ASSERT_EQ(authorizer_->asked.size(), 1u);
  const auth::ResourceAttributes& a = authorizer_->asked[0];
  EXPECT_EQ(a.user.name, "alice");
  EXPECT_EQ(a.user.groups, std::vector<std::string>{"team-a"});
  EXPECT_EQ(a.verb, "get");
  EXPECT_EQ(a.group, "visibility.kueue.x-k8s.io");
  EXPECT_EQ(a.resource, "clusterqueues");
  EXPECT_EQ(a.subresource, "pendingworkloads");
  EXPECT_EQ(a.name, "cq");
  EXPECT_EQ(a.ns, "");

  Reply middle = get(std::string(kCq) + "?limit=1&offset=1", proxy_cert(), kAlice);
  ASSERT_EQ(middle.status, 200) << middle.body;
  ASSERT_EQ(middle.doc.at("items").as_array().size(), 1u);
  EXPECT_EQ(middle.doc.at("items").at(0).at("metadata").at("name"), "wl-1");
  EXPECT_EQ(middle.doc.at("items").at(0).at("positionInClusterQueue"), 1);
}

TEST_F(VisibilityServerTest, ANamespacedReaderReadsItsLocalQueueAndNotTheClusterQueue) {
  authorizer_->allow("alice", "localqueues/pendingworkloads");
  Reply lq = get(kLq, proxy_cert(), kAlice);
  ASSERT_EQ(lq.status, 200) << lq.body;
  EXPECT_EQ(lq.doc.at("apiVersion"), "visibility.kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(lq.doc.at("items").as_array().size(), 3u);
  EXPECT_EQ(authorizer_->asked.back().ns, "default");
  Reply cq = get(kCq, proxy_cert(), kAlice);
  EXPECT_EQ(cq.status, 403) << cq.body;
  EXPECT_EQ(cq.doc.at("reason"), "Forbidden");
  EXPECT_EQ(cq.doc.at("code"), 403);
}

TEST_F(VisibilityServerTest, UnverifiedProxiesAndAnonymousRequestsAreUnauthorized) {
  // No certificate, a certificate of another CA, a CN not allowed: the headers are not
  // believed, and without a token that is a 401 before any authorization.
  for (const auto& client : {std::optional<tls::testing::KeyPair>{}, std::optional(other_ca_.issue("front-proxy-client")),
                             std::optional(proxy_cert("intruder"))}) {
    Reply r = get(kCq, client, kAlice);
    EXPECT_EQ(r.status, 401) << r.body;
    EXPECT_EQ(r.doc.at("reason"), "Unauthorized");
  }
  // A trusted proxy that names no user.
  EXPECT_EQ(get(kCq, proxy_cert(), {}).status, 401);
  EXPECT_TRUE(authorizer_->asked.empty());
  // Until the ConfigMap is read, no proxy is trusted.
  handler_->set_request_header_config(std::nullopt);
  authorizer_->allow("alice", "clusterqueues/pendingworkloads");
  EXPECT_EQ(get(kCq, proxy_cert(), kAlice).status, 401);
}

TEST_F(VisibilityServerTest, BearerTokensGoThroughTheTokenReview) {
  authorizer_->allow("token-user", "clusterqueues/pendingworkloads");
  EXPECT_EQ(get(kCq, std::nullopt, {{"Authorization", "Bearer good-token"}}).status, 200);
  EXPECT_EQ(authorizer_->asked.back().user.name, "token-user");
  EXPECT_EQ(get(kCq, std::nullopt, {{"Authorization", "Bearer bad-token"}}).status, 401);
}

TEST_F(VisibilityServerTest, BadOptionsAndUnknownQueues) {
  authorizer_->allow("alice", "clusterqueues/pendingworkloads");
  authorizer_->allow("alice", "localqueues/pendingworkloads");
  Reply bad = get(std::string(kCq) + "?limit=many", proxy_cert(), kAlice);
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(bad.doc.at("reason"), "BadRequest");
  Reply none = get(std::string(kCq) + "?offset=10", proxy_cert(), kAlice);
  EXPECT_EQ(none.status, 200);
  EXPECT_TRUE(none.doc.at("items").as_array().empty());
  Reply unknown = get("/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/nope/pendingworkloads", proxy_cert(), kAlice);
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(unknown.doc.at("message"), "clusterqueue.visibility.kueue.x-k8s.io \"nope\" not found");
  Reply unknown_lq = get("/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/nope/pendingworkloads",
                         proxy_cert(), kAlice);
  EXPECT_EQ(unknown_lq.status, 404);
  EXPECT_EQ(unknown_lq.doc.at("details").at("kind"), "localqueue");
}

TEST_F(VisibilityServerTest, DiscoveryIsServedToAnyClient) {
  Reply group = get("/apis/visibility.kueue.x-k8s.io", std::nullopt);
  EXPECT_EQ(group.status, 200);
  EXPECT_EQ(group.doc.at("kind"), "APIGroup");
  Reply list = get("/apis/visibility.kueue.x-k8s.io/v1beta1", std::nullopt);
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.doc.at("groupVersion"), "visibility.kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(get("/apis/visibility.kueue.x-k8s.io/v9/clusterqueues/cq/pendingworkloads", std::nullopt).status, 404);
}

TEST_F(VisibilityServerTest, AWhatIfQuestionIsACreateAuthorizedAsTheLocalQueuesPendingList) {
  const std::string path = "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/lq/whatif";
  const std::string job = R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"asked"}})";
  // Without the right to read the queue's pending workloads: refused, not asked.
  Reply refused = send(bhttp::verb::post, path, job, proxy_cert(), kAlice);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_TRUE(queues_->asked_what_if.empty());
  authorizer_->allow("alice", "localqueues/pendingworkloads");
  Reply r = send(bhttp::verb::post, path, job, proxy_cert(), kAlice);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.doc.at("kind"), "WhatIfResult");
  EXPECT_EQ(r.doc.at("status").at("positionInClusterQueue"), 3);
  ASSERT_EQ(queues_->asked_what_if.size(), 1u);
  EXPECT_EQ(queues_->asked_what_if[0].body, job);
  EXPECT_EQ(queues_->asked_what_if[0].version, "v1beta2");
  EXPECT_EQ(authorizer_->asked.back().verb, "get");
  EXPECT_EQ(authorizer_->asked.back().subresource, "pendingworkloads");
  // A GET of the subresource, a body that is no object, an unknown queue.
  EXPECT_EQ(get(path, proxy_cert(), kAlice).status, 405);
  Reply bad = send(bhttp::verb::post, path, "not json", proxy_cert(), kAlice);
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(bad.doc.at("message"), "the body is not a Workload or a batch/v1 Job");
  Reply unknown = send(bhttp::verb::post, "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/nope/whatif",
                       job, proxy_cert(), kAlice);
  EXPECT_EQ(unknown.status, 404) << unknown.body;
}

// Each question is answered on a copy of its tree while the tree's admissions wait: a
// replica answers two at once and tells the rest to come back (429, Retry-After), as
// kube-apiserver's max-requests-inflight does.
TEST_F(VisibilityServerTest, WhatIfQuestionsBeyondTwoInFlightAreTooManyRequests) {
  authorizer_->allow("alice", "localqueues/pendingworkloads");
  const std::string path = "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/default/localqueues/lq/whatif";
  const std::string job = R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"asked"}})";
  const auto cert = proxy_cert();
  auto ask = [&] { return send(bhttp::verb::post, path, job, cert, kAlice); };
  queues_->hold_what_ifs = true;
  auto first = std::async(std::launch::async, ask);
  auto second = std::async(std::launch::async, ask);
  for (int i = 0; i < 1000 && queues_->held() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(queues_->held(), 2u);
  Reply busy = ask();
  EXPECT_EQ(busy.status, 429) << busy.body;
  EXPECT_EQ(busy.retry_after, "1");
  EXPECT_EQ(busy.doc.at("reason"), "TooManyRequests");
  EXPECT_EQ(busy.doc.at("details").at("retryAfterSeconds"), 1);
  EXPECT_EQ(queues_->asked_what_if.size(), 2u) << "the third question reached the controller";
  queues_->hold_what_ifs = false;
  queues_->release_held();
  EXPECT_EQ(first.get().status, 201);
  EXPECT_EQ(second.get().status, 201);
  // The answered questions gave their places back.
  EXPECT_EQ(ask().status, 201);
  EXPECT_EQ(ask().status, 201);
}

}  // namespace
}  // namespace kueuepp::kube::visibility
