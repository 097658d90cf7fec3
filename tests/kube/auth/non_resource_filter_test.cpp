// The gate of the HTTPS metrics and introspection listener: who may pass, and what the
// refused are told, with fake TokenReviews and SubjectAccessReviews.

#include "kube/auth/non_resource_filter.hpp"

#include <gtest/gtest.h>

#include "kube/json/json.hpp"
#include "tests/kube/tls/test_certificates.hpp"

namespace kueuepp::kube::auth {
namespace {

/// "reader-token" is alice, "broken" fails the review, anything else is not authenticated.
class FakeTokens : public TokenAuthenticator {
 public:
  int calls = 0;
  void authenticate(const std::string& token, Callback done) override {
    ++calls;
    if (token == "reader-token") {
      done(std::optional<UserInfo>(UserInfo{"alice", "a-1", {"team-a", "system:authenticated"}, {}}));
    } else if (token == "broken") {
      done(fail("TokenReview: connection refused"));
    } else {
      done(std::optional<UserInfo>{});
    }
  }
};

/// Allows the paths of `allowed`; records every question.
class FakeAuthorizer : public Authorizer {
 public:
  std::vector<std::string> allowed;
  bool broken = false;
  std::vector<ResourceAttributes> asked;
  void authorize(const ResourceAttributes& a, Callback done) override {
    asked.push_back(a);
    if (broken) {
      done(fail("SubjectAccessReview: the API server answered 500"));
      return;
    }
    bool ok = std::find(allowed.begin(), allowed.end(), a.path) != allowed.end();
    done(AuthorizationDecision{ok, ok ? "" : "no RBAC policy matched"});
  }
};

class NonResourceGateTest : public ::testing::Test {
 protected:
  GateDecision check(GateRequest request, const NonResourceGate& gate) {
    std::optional<GateDecision> out;
    gate.check(request, [&](GateDecision d) { out = std::move(d); });
    EXPECT_TRUE(out.has_value()) << "the gate did not answer";
    return out.value_or(GateDecision{});
  }
  GateDecision check(GateRequest request) { return check(std::move(request), gate_); }

  static GateRequest get(std::string target, std::string token = "") {
    GateRequest r;
    r.method = "GET";
    r.target = std::move(target);
    if (!token.empty()) r.headers.emplace_back("Authorization", "Bearer " + token);
    return r;
  }

  static std::string message(const GateDecision& d) {
    auto doc = json::parse(d.body);
    if (!doc || !doc->is_object()) return "not a JSON document: " + d.body;
    return std::string(json::get_string(doc->as_object(), "message"));
  }

  std::shared_ptr<FakeTokens> tokens_ = std::make_shared<FakeTokens>();
  std::shared_ptr<FakeAuthorizer> authorizer_ = std::make_shared<FakeAuthorizer>();
  NonResourceGate gate_{tokens_, authorizer_};
};

TEST_F(NonResourceGateTest, WithoutCredentialsIsUnauthorizedAndAsksNobody) {
  GateDecision d = check(get("/metrics"));
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.status, 401);
  EXPECT_NE(message(d).find("bearer token"), std::string::npos) << d.body;
  EXPECT_EQ(tokens_->calls, 0);
  EXPECT_TRUE(authorizer_->asked.empty());
}

TEST_F(NonResourceGateTest, ATokenTheClusterRefusesIsUnauthorized) {
  GateDecision d = check(get("/metrics", "stolen"));
  EXPECT_EQ(d.status, 401);
  EXPECT_NE(message(d).find("TokenReview"), std::string::npos) << d.body;
  EXPECT_TRUE(authorizer_->asked.empty());
  EXPECT_EQ(check(get("/metrics", "broken")).status, 401);
}

TEST_F(NonResourceGateTest, AnAllowedReaderPassesWithThePathAsANonResourceUrl) {
  authorizer_->allowed = {"/metrics"};
  GateDecision d = check(get("/metrics?name[]=kueue_pending_workloads", "reader-token"));
  EXPECT_TRUE(d.allowed) << d.body;
  EXPECT_EQ(d.user.name, "alice");
  ASSERT_EQ(authorizer_->asked.size(), 1u);
  const ResourceAttributes& a = authorizer_->asked[0];
  EXPECT_EQ(a.path, "/metrics");  // the query is not part of the URL authorized
  EXPECT_EQ(a.verb, "get");
  EXPECT_EQ(a.user.name, "alice");
  EXPECT_EQ(a.user.groups, (std::vector<std::string>{"team-a", "system:authenticated"}));
  EXPECT_TRUE(a.resource.empty());
}

TEST_F(NonResourceGateTest, ADeniedReaderIsForbiddenAndToldWhoWasRefusedWhat) {
  authorizer_->allowed = {"/metrics"};
  GateDecision d = check(get("/debug/cohorts", "reader-token"));
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.status, 403);
  const std::string m = message(d);
  EXPECT_NE(m.find("user \"alice\""), std::string::npos) << m;
  EXPECT_NE(m.find("get path \"/debug/cohorts\""), std::string::npos) << m;
  EXPECT_NE(m.find("no RBAC policy matched"), std::string::npos) << m;
  auto doc = json::parse(d.body);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->at("reason"), "Forbidden");
  EXPECT_EQ(doc->at("code"), 403);
}

TEST_F(NonResourceGateTest, TheVerbIsTheMethodInLowerCase) {
  authorizer_->allowed = {"/"};
  GateRequest r = get("", "reader-token");
  r.method = "HEAD";
  EXPECT_TRUE(check(r).allowed);
  ASSERT_EQ(authorizer_->asked.size(), 1u);
  EXPECT_EQ(authorizer_->asked[0].verb, "head");
  EXPECT_EQ(authorizer_->asked[0].path, "/");
}

TEST_F(NonResourceGateTest, AFailedAuthorizationIsAnInternalError) {
  authorizer_->broken = true;
  GateDecision d = check(get("/metrics", "reader-token"));
  EXPECT_EQ(d.status, 500);
  EXPECT_NE(message(d).find("500"), std::string::npos) << d.body;
}

TEST_F(NonResourceGateTest, AClientCertificateOfTheClientCaAuthenticatesItsSubject) {
  tls::testing::TestCa ca("metrics-client-ca");
  tls::testing::TestCa other("someone-else");
  NonResourceGate gate(tokens_, authorizer_, ca.pem());
  authorizer_->allowed = {"/metrics"};
  GateRequest r = get("/metrics");
  r.peer_chain_der = {tls::testing::TestCa::der_of(ca.issue("prometheus", false, {"monitoring"}).cert_pem)};
  GateDecision d = check(r, gate);
  EXPECT_TRUE(d.allowed) << d.body;
  EXPECT_EQ(d.user.name, "prometheus");
  EXPECT_EQ(d.user.groups, (std::vector<std::string>{"monitoring", "system:authenticated"}));

  // Signed by another CA: no identity from it; without a token, unauthorized.
  r.peer_chain_der = {tls::testing::TestCa::der_of(other.issue("prometheus").cert_pem)};
  EXPECT_EQ(check(r, gate).status, 401);
  // Without a client CA configured, certificates are not read at all.
  r.peer_chain_der = {tls::testing::TestCa::der_of(ca.issue("prometheus").cert_pem)};
  EXPECT_EQ(check(r).status, 401);
  EXPECT_EQ(tokens_->calls, 0);
}

}  // namespace
}  // namespace kueuepp::kube::auth
