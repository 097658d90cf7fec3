// ServiceAccount tokens over HTTP, as `kubectl create token` asks for them and as a
// controller in a Pod presents them: the TokenRequest subresource answers a token that
// authenticates as the ServiceAccount, authorized by RBAC like any user; TokenReview
// answers for it; it stops working when its ServiceAccount is deleted; bad requests get
// kube-apiserver's errors.

#include "kube/apiserver/server/auth/service_account_tokens.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kRbac = "/apis/rbac.authorization.k8s.io/v1";
constexpr std::string_view kMasterToken = "master-token";
constexpr std::string_view kAccounts = "/api/v1/namespaces/team/serviceaccounts";

class TokenRequests : public ServerTest {
 protected:
  ApiServerOptions options() const override {
    ApiServerOptions o = test_options();
    o.bearer_token = std::string(kMasterToken);
    return o;
  }

  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    expect(201, as_master("POST", "/api/v1/namespaces", json::dump(name_space("team"))));
    expect(201, as_master("POST", kAccounts, R"({"metadata": {"name": "runner"}})"));
    expect(201, as_master("POST", "/apis/batch/v1/namespaces/team/jobs", json::dump(job("j1"))));
  }

  HttpReply as(std::string_view token, std::string_view method, std::string_view target, std::string_view body = {}) {
    return api().request(method, target, body, "application/json", {{"Authorization", "Bearer " + std::string(token)}});
  }
  HttpReply as_master(std::string_view method, std::string_view target, std::string_view body = {}) {
    return as(kMasterToken, method, target, body);
  }
  HttpReply request_token(std::string_view account, std::string_view spec = "{}") {
    return as_master("POST", std::string(kAccounts) + "/" + std::string(account) + "/token",
                     R"({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": )" + std::string(spec) +
                         "}");
  }
  std::string token_of(std::string_view account) {
    return str(expect(201, request_token(account)), "/status/token");
  }
};

TEST_F(TokenRequests, ATokenRequestAnswersATokenForTheServiceAccount) {
  json::value answer = expect(201, request_token("runner"));
  EXPECT_EQ(str(answer, "/kind"), "TokenRequest");
  EXPECT_EQ(str(answer, "/apiVersion"), "authentication.k8s.io/v1");
  EXPECT_EQ(str(answer, "/metadata/name"), "runner");
  EXPECT_EQ(str(answer, "/metadata/namespace"), "team");
  EXPECT_EQ(num(answer, "/spec/expirationSeconds"), 3600);
  EXPECT_EQ(json::dump(*at(answer, "/spec/audiences")), R"(["https://kubernetes.default.svc.cluster.local"])");
  EXPECT_FALSE(str(answer, "/status/token").empty());
  EXPECT_FALSE(str(answer, "/status/expirationTimestamp").empty());
}

TEST_F(TokenRequests, TheTokenIsTheServiceAccountAuthorizedByRbac) {
  std::string token = token_of("runner");
  json::value refused = expect(403, as(token, "GET", "/apis/batch/v1/namespaces/team/jobs"));
  EXPECT_EQ(str(refused, "/message"),
            R"(jobs.batch is forbidden: User "system:serviceaccount:team:runner" cannot list resource "jobs" in API group "batch" in the namespace "team")");
  expect(201, as_master("POST", std::string(kRbac) + "/namespaces/team/roles", R"({"metadata": {"name": "job-reader"},
      "rules": [{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["list"]}]})"));
  expect(201, as_master("POST", std::string(kRbac) + "/namespaces/team/rolebindings", R"({"metadata": {"name": "runner"},
      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "job-reader"},
      "subjects": [{"kind": "ServiceAccount", "name": "runner"}]})"));
  EXPECT_EQ(item_names(expect(200, as(token, "GET", "/apis/batch/v1/namespaces/team/jobs"))),
            std::vector<std::string>{"j1"});

  json::value whoami = expect(201, as(token, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                                      R"({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})"));
  EXPECT_EQ(str(whoami, "/status/userInfo/username"), "system:serviceaccount:team:runner");
  EXPECT_EQ(json::dump(*at(whoami, "/status/userInfo/groups")),
            R"(["system:serviceaccounts","system:serviceaccounts:team","system:authenticated"])");
}

TEST_F(TokenRequests, TokenReviewAnswersForServiceAccountTokens) {
  std::string token = token_of("runner");
  auto review = [&](std::string_view audiences) {
    return expect(201, as_master("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                                 R"({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": ")" +
                                     token + R"(", "audiences": )" + std::string(audiences) + "}}"));
  };
  json::value ok = review("[]");
  EXPECT_EQ(*at(ok, "/status/authenticated"), json::value(true));
  EXPECT_EQ(str(ok, "/status/user/username"), "system:serviceaccount:team:runner");
  EXPECT_EQ(json::dump(*at(ok, "/status/audiences")), R"(["https://kubernetes.default.svc.cluster.local"])");
  json::value elsewhere = review(R"(["vault"])");
  EXPECT_EQ(at(elsewhere, "/status/authenticated"), nullptr);
  EXPECT_EQ(str(elsewhere, "/status/error"),
            R"([invalid bearer token, token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["vault"]])");
}

TEST_F(TokenRequests, ADeletedServiceAccountsTokenIsUnauthorized) {
  std::string token = token_of("runner");
  expect(403, as(token, "GET", "/apis/batch/v1/namespaces/team/jobs"));
  expect(200, as_master("DELETE", std::string(kAccounts) + "/runner"));
  json::value refused = expect(401, as(token, "GET", "/apis/batch/v1/namespaces/team/jobs"));
  EXPECT_EQ(str(refused, "/reason"), "Unauthorized");
  // A ServiceAccount of the same name made again is another account.
  expect(201, as_master("POST", kAccounts, R"({"metadata": {"name": "runner"}})"));
  expect(401, as(token, "GET", "/apis/batch/v1/namespaces/team/jobs"));
  expect(403, as(token_of("runner"), "GET", "/apis/batch/v1/namespaces/team/jobs"));
}

TEST_F(TokenRequests, BadRequestsGetKubeApiserversErrors) {
  json::value short_lived = expect(422, request_token("runner", R"({"expirationSeconds": 599})"));
  EXPECT_EQ(str(short_lived, "/message"),
            R"(TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes)");
  expect(201, request_token("runner", R"({"expirationSeconds": 600})"));
  json::value missing = expect(404, request_token("nobody"));
  EXPECT_EQ(str(missing, "/message"), R"(serviceaccounts "nobody" not found)");
  expect(400, as_master("POST", std::string(kAccounts) + "/runner/token", "{not json"));
  expect(400, request_token("runner", R"({"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "x"}})"));
  expect(404, request_token("runner", R"({"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "p"}})"));
  expect(405, as_master("GET", std::string(kAccounts) + "/runner/token"));
  // Garbage in place of a token is no user at all.
  for (std::string_view bad : {"a.b.c", "eyJhbGciOiJub25lIn0.e30.", "...."}) {
    expect(401, as(bad, "GET", "/apis/batch/v1/namespaces/team/jobs"));
  }
}

TEST_F(TokenRequests, AskingForATokenIsAuthorizedAsCreateServiceaccountsToken) {
  std::string token = token_of("runner");
  json::value refused = expect(403, as(token, "POST", std::string(kAccounts) + "/runner/token", R"({"spec": {}})"));
  EXPECT_EQ(str(refused, "/message"),
            R"(serviceaccounts "runner" is forbidden: User "system:serviceaccount:team:runner" cannot create resource "serviceaccounts/token" in API group "" in the namespace "team")");
}

// As kube-apiserver lists it: in /api/v1 as serviceaccounts/token of kind
// authentication.k8s.io/v1 TokenRequest, and under serviceaccounts in aggregated discovery.
TEST_F(TokenRequests, DiscoveryListsTheTokenSubresource) {
  json::value list = expect(200, as_master("GET", "/api/v1"));
  std::string token_entry;
  for (const auto& r : at(list, "/resources")->as_array()) {
    if (str(r, "/name") == "serviceaccounts/token") token_entry = json::dump(r);
  }
  EXPECT_EQ(token_entry,
            R"({"name":"serviceaccounts/token","singularName":"","namespaced":true,"group":"authentication.k8s.io",)"
            R"("version":"v1","kind":"TokenRequest","verbs":["create"]})");
  json::value aggregated = body_json(api().request(
      "GET", "/api", {}, "application/json",
      {{"Authorization", "Bearer " + std::string(kMasterToken)},
       {"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}}));
  std::string subresources;
  for (const auto& r : at(aggregated, "/items/0/versions/0/resources")->as_array()) {
    if (str(r, "/resource") == "serviceaccounts") subresources = json::dump(*at(r, "/subresources"));
  }
  EXPECT_EQ(subresources,
            R"([{"subresource":"token","responseKind":{"group":"authentication.k8s.io","version":"v1","kind":"TokenRequest"},)"
            R"("verbs":["create"]}])");
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
