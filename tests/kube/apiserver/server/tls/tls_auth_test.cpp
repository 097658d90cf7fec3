// TLS and authentication: HTTPS with the generated CA, bearer tokens (401 without or
// with a wrong one; health and version endpoints stay public), the written kubeconfig
// working for kueuepp's own client and for kubectl, and certificates and token kept in
// the data directory across restarts.

#include <array>
#include <cstdio>
#include <cstdlib>

#include <sys/wait.h>

#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/client/kubeconfig.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

namespace kc = kueuepp::kube::client;

std::unique_ptr<kc::Client> https_client(const std::string& url, const std::string& ca, const std::string& token) {
  kc::ClientConfig config;
  config.server = url;
  config.ca_pem = ca;
  config.token = token;
  config.source = "test";
  kc::ClientOptions options;
  options.qps = -1;
  options.retry.max_retries = 0;
  options.request_timeout = std::chrono::seconds(10);
  auto client = kc::Client::create(std::move(config), options);
  EXPECT_TRUE(client) << client.error().message;
  return client ? std::move(*client) : nullptr;
}

kc::Result<kc::HttpResponse> get(kc::Client& client, std::string target, kc::Headers headers = {}) {
  kc::HttpRequest req;
  req.method = "GET";
  req.target = std::move(target);
  req.headers = std::move(headers);
  req.headers.emplace_back("Accept", "application/json");
  return kc::BlockingClient(client).raw(std::move(req));
}

/// Runs a shell command; its exit code and standard output.
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

class ApiServerTls : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.tls = true;
    o.bearer_token = "s3cret-token";
    return o;
  }
};

TEST_F(ApiServerTls, HttpsWithTheGeneratedCaAndTheToken) {
  EXPECT_EQ(server().url().rfind("https://127.0.0.1:", 0), 0u) << server().url();
  EXPECT_EQ(server().bearer_token(), "s3cret-token");
  std::string ca = server().ca_certificate_pem();
  ASSERT_NE(ca.find("BEGIN CERTIFICATE"), std::string::npos);

  auto client = https_client(server().url(), ca, "s3cret-token");
  ASSERT_TRUE(client);
  auto ok = get(*client, "/api/v1/namespaces/default");
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(ok->status, 200) << ok->body;
  auto created = kc::BlockingClient(*client).raw(
      kc::HttpRequest{"POST", "/api/v1/namespaces", {{"Content-Type", "application/json"}},
                      json::dump(name_space("over-tls"))});
  ASSERT_TRUE(created) << created.error().describe();
  EXPECT_EQ(created->status, 201) << created->body;
}

// Answers larger than a TLS record (16 KiB) arrive whole: a gathered write of head and
// body once sent the head alone over TLS and took the write of nothing that followed for
// the end, so the body never left and the client waited.
TEST_F(ApiServerTls, AnswersLargerThanATlsRecordArriveWhole) {
  auto client = https_client(server().url(), server().ca_certificate_pem(), "s3cret-token");
  ASSERT_TRUE(client);
  for (std::size_t size : {std::size_t{15000}, std::size_t{17000}, std::size_t{100000}, std::size_t{900000}}) {
    const std::string name = "big-" + std::to_string(size);
    json::value cm = json::object{{"metadata", json::object{{"name", name}}},
                                  {"data", json::object{{"blob", std::string(size, 'x')}}}};
    auto created = kc::BlockingClient(*client).raw(
        kc::HttpRequest{"POST", "/api/v1/namespaces/default/configmaps", {{"Content-Type", "application/json"}},
                        json::dump(cm)});
    ASSERT_TRUE(created) << created.error().describe();
    ASSERT_EQ(created->status, 201) << created->body.substr(0, 200);
    EXPECT_GT(created->body.size(), size);
    auto got = get(*client, "/api/v1/namespaces/default/configmaps/" + name);
    ASSERT_TRUE(got) << size << ": " << got.error().describe();
    EXPECT_EQ(got->status, 200);
    EXPECT_GT(got->body.size(), size);
  }
  auto list = get(*client, "/api/v1/namespaces/default/configmaps");
  ASSERT_TRUE(list) << list.error().describe();
  EXPECT_GT(list->body.size(), std::size_t{1032000});
}

TEST_F(ApiServerTls, WatchesOverHttps) {
  auto client = https_client(server().url(), server().ca_certificate_pem(), "s3cret-token");
  ASSERT_TRUE(client);
  auto created = kc::BlockingClient(*client).raw(
      kc::HttpRequest{"POST", "/api/v1/namespaces", {{"Content-Type", "application/json"}},
                      json::dump(name_space("watched"))});
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  // The stream ends after a second (timeoutSeconds); the namespace's change is in it.
  auto stream = kc::BlockingClient(*client).raw_stream(kc::HttpRequest{
      "GET", "/api/v1/namespaces?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dwatched", {}, std::nullopt});
  ASSERT_TRUE(stream) << stream.error().describe();
  EXPECT_EQ(stream->status, 200);
  EXPECT_NE(stream->body.find(R"("type":"ADDED")"), std::string::npos) << stream->body;
  EXPECT_NE(stream->body.find(R"("name":"watched")"), std::string::npos) << stream->body;
}

TEST_F(ApiServerTls, RequestsWithoutTheRightTokenAre401) {
  std::string ca = server().ca_certificate_pem();
  auto anonymous = https_client(server().url(), ca, "");
  ASSERT_TRUE(anonymous);
  for (const char* target : {"/api/v1/namespaces", "/api", "/apis", "/api/v1/namespaces/default", "/openapi/v2"}) {
    auto r = get(*anonymous, target);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->status, 401) << target;
    auto status = json::parse(r->body);
    ASSERT_TRUE(status) << r->body;
    EXPECT_EQ(str(*status, "/kind"), "Status");
    EXPECT_EQ(str(*status, "/reason"), "Unauthorized");
    EXPECT_EQ(num(*status, "/code"), 401);
  }
  auto wrong = https_client(server().url(), ca, "not-the-token");
  ASSERT_TRUE(wrong);
  auto r = get(*wrong, "/api/v1/namespaces");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  // Near misses of the header ("bearer" in lower case is fine: kube-apiserver reads the
  // scheme in any case).
  for (const char* auth : {"Bearer s3cret-token-and-more", "Bearer s3cret-toke", "Basic czNjcmV0LXRva2Vu",
                           "Bearer  s3cret-token", "Bearers3cret-token"}) {
    auto near = get(*anonymous, "/api/v1/namespaces", {{"Authorization", auth}});
    ASSERT_TRUE(near);
    EXPECT_EQ(near->status, 401) << auth;
  }
  // Health and version stay public (kube-apiserver's public-info-viewer).
  for (const char* target : {"/healthz", "/livez", "/readyz", "/version"}) {
    auto pub = get(*anonymous, target);
    ASSERT_TRUE(pub);
    EXPECT_EQ(pub->status, 200) << target;
  }
  // The right token, for comparison.
  auto right = get(*anonymous, "/api/v1/namespaces", {{"Authorization", "Bearer s3cret-token"}});
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200);
}

TEST_F(ApiServerTls, TheServerIsNotTrustedWithoutItsCaNorReachableOverPlainHttp) {
  auto untrusting = https_client(server().url(), "", "s3cret-token");  // system roots only
  ASSERT_TRUE(untrusting);
  auto r = get(*untrusting, "/api/v1/namespaces");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is_transport()) << r.error().describe();
  // Plain HTTP to the TLS port gets no HTTP answer; the server goes on serving.
  HttpConnection plain(port());
  ASSERT_TRUE(plain.send_raw("GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto reply = plain.read_reply(std::chrono::seconds(5));
  EXPECT_TRUE(!reply || reply->status == 0 || reply->status == 400) << reply->status;
  auto client = https_client(server().url(), server().ca_certificate_pem(), "s3cret-token");
  auto ok = get(*client, "/api/v1/namespaces");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST_F(ApiServerTls, TheWrittenKubeconfigWorks) {
  TempDir dir;
  std::string path = dir.file("kubeconfig");
  ASSERT_TRUE(server().write_kubeconfig(path));
  kc::KubeconfigLoadOptions load;
  load.explicit_path = path;
  auto config = kc::load_kubeconfig(load);
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, server().url());
  EXPECT_EQ(config->token, "s3cret-token");
  EXPECT_EQ(config->ca_pem, server().ca_certificate_pem());
  kc::ClientOptions options;
  options.retry.max_retries = 0;
  auto client = kc::Client::create(*config, options);
  ASSERT_TRUE(client) << client.error().message;
  auto r = get(**client, "/api/v1/namespaces/default");
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->status, 200);

  if (run("command -v kubectl >/dev/null 2>&1").first != 0) GTEST_SKIP() << "kubectl is not installed";
  // A discovery cache of its own (kubectl keeps one per server address, new each run).
  std::string kubectl = "kubectl --kubeconfig " + path + " --cache-dir " + dir.file("cache") + " --request-timeout=10s ";
  auto [rc, out] = run(kubectl + "get namespaces -o name 2>&1");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("namespace/default"), std::string::npos) << out;
  EXPECT_NE(out.find("namespace/kube-system"), std::string::npos) << out;
  // kubectl with a wrong token is refused.
  auto [rc2, out2] = run(kubectl + "--token wrong get namespaces 2>&1");
  EXPECT_NE(rc2, 0) << out2;
  EXPECT_NE(out2.find("Unauthorized"), std::string::npos) << out2;
}

class ApiServerTlsGeneratedToken : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.tls = true;
    o.data_dir = dir_.path();
    return o;
  }
  TempDir dir_;
};

TEST_F(ApiServerTlsGeneratedToken, TokenAndCaAreGeneratedAndKeptAcrossRestarts) {
  std::string token = server().bearer_token();
  std::string ca = server().ca_certificate_pem();
  EXPECT_GE(token.size(), 32u);
  TempDir kube;
  std::string path = kube.file("kubeconfig");
  ASSERT_TRUE(server().write_kubeconfig(path));
  stop();
  start(options());
  EXPECT_EQ(server().bearer_token(), token);
  EXPECT_EQ(server().ca_certificate_pem(), ca);
  // The kubeconfig written before the restart still works (the port differs: use the new URL).
  kc::KubeconfigLoadOptions load;
  load.explicit_path = path;
  auto config = kc::load_kubeconfig(load);
  ASSERT_TRUE(config) << config.error().message;
  auto client = https_client(server().url(), config->ca_pem, config->token);
  ASSERT_TRUE(client);
  auto r = get(*client, "/api/v1/namespaces");
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->status, 200);
}

class ApiServerTokenWithoutTls : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.bearer_token = "plain-token";
    return o;
  }
};

TEST_F(ApiServerTokenWithoutTls, TheTokenIsRequiredOverPlainHttpToo) {
  EXPECT_EQ(server().url().rfind("http://", 0), 0u);
  EXPECT_EQ(server().ca_certificate_pem(), "");
  EXPECT_EQ(api().get("/api/v1/namespaces").status, 401);
  EXPECT_EQ(api().request("GET", "/api/v1/namespaces", {}, "application/json", {{"Authorization", "Bearer plain-token"}}).status,
            200);
  EXPECT_EQ(api().get("/healthz").status, 200);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
