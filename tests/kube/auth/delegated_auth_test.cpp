// Delegated authentication and authorization: the front proxy's ConfigMap and headers,
// the review documents on the wire, and the authorizer's cache.

#include <gtest/gtest.h>

#include "kube/json/json.hpp"
#include "kube/auth/delegated_auth.hpp"

namespace kueuepp::kube::auth {
namespace {

constexpr const char* kConfigMap = R"({
  "apiVersion": "v1", "kind": "ConfigMap",
  "metadata": {"name": "extension-apiserver-authentication", "namespace": "kube-system"},
  "data": {
    "client-ca-file": "CLIENT-CA",
    "requestheader-client-ca-file": "PROXY-CA",
    "requestheader-allowed-names": "[\"front-proxy-client\"]",
    "requestheader-extra-headers-prefix": "[\"X-Remote-Extra-\"]",
    "requestheader-group-headers": "[\"X-Remote-Group\"]",
    "requestheader-username-headers": "[\"X-Remote-User\"]"
  }
})";

TEST(DelegatedAuth, ReadsTheFrontProxyConfigMap) {
  auto config = request_header_config(kConfigMap);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->client_ca_pem, "PROXY-CA");
  EXPECT_EQ(config->allowed_names, std::vector<std::string>{"front-proxy-client"});
  EXPECT_TRUE(proxy_name_allowed(*config, "front-proxy-client"));
  EXPECT_FALSE(proxy_name_allowed(*config, "someone-else"));
  config->allowed_names.clear();
  EXPECT_TRUE(proxy_name_allowed(*config, "someone-else"));  // an empty list allows any verified proxy

  auto broken = request_header_config(R"({"data":{"requestheader-allowed-names":"front-proxy-client"}})");
  ASSERT_FALSE(broken.has_value());
  EXPECT_NE(broken.error().message.find("requestheader-allowed-names"), std::string::npos);
  EXPECT_FALSE(request_header_config("{").has_value());
  auto empty = request_header_config(R"({"data":{}})");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->client_ca_pem.empty());
}

TEST(DelegatedAuth, UserFromTheProxysHeaders) {
  auto config = request_header_config(kConfigMap);
  ASSERT_TRUE(config.has_value());
  http::Headers headers{{"x-remote-user", "alice"},
                        {"X-Remote-Group", "team-a"},
                        {"X-Remote-Group", "system:authenticated"},
                        {"X-Remote-Extra-Scopes", "read"},
                        {"X-Other", "x"}};
  auto user = user_from_request_headers(headers, *config);
  ASSERT_TRUE(user.has_value());
  EXPECT_EQ(user->name, "alice");
  EXPECT_EQ(user->groups, (std::vector<std::string>{"team-a", "system:authenticated"}));
  EXPECT_EQ(user->extra.at("scopes"), std::vector<std::string>{"read"});
  EXPECT_FALSE(user_from_request_headers({{"X-Remote-Group", "team-a"}}, *config).has_value());
}

TEST(DelegatedAuth, BearerTokens) {
  EXPECT_EQ(bearer_token({{"Authorization", "Bearer abc"}}), std::optional<std::string>("abc"));
  EXPECT_EQ(bearer_token({{"authorization", "bearer  abc"}}), std::optional<std::string>("abc"));
  EXPECT_FALSE(bearer_token({{"Authorization", "Basic abc"}}).has_value());
  EXPECT_FALSE(bearer_token({{"Authorization", "Bearer "}}).has_value());
  EXPECT_FALSE(bearer_token({}).has_value());
}

TEST(DelegatedAuth, SubjectAccessReviewOnTheWire) {
  ResourceAttributes a;
  a.user = UserInfo{"alice", "u1", {"team-a"}, {{"scopes", {"read"}}}};
  a.group = "visibility.kueue.x-k8s.io";
  a.version = "v1beta2";
  a.resource = "localqueues";
  a.subresource = "pendingworkloads";
  a.name = "lq";
  a.ns = "team";
  auto doc = json::parse(encode_subject_access_review(a));
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->at("apiVersion"), "authorization.k8s.io/v1");
  EXPECT_EQ(doc->at("kind"), "SubjectAccessReview");
  const auto& spec = doc->at("spec");
  EXPECT_EQ(spec.at("user"), "alice");
  EXPECT_EQ(spec.at("uid"), "u1");
  EXPECT_EQ(spec.at("groups").at(0), "team-a");
  EXPECT_EQ(spec.at("extra").at("scopes").at(0), "read");
  const auto& ra = spec.at("resourceAttributes");
  EXPECT_EQ(ra.at("namespace"), "team");
  EXPECT_EQ(ra.at("verb"), "get");
  EXPECT_EQ(ra.at("group"), "visibility.kueue.x-k8s.io");
  EXPECT_EQ(ra.at("resource"), "localqueues");
  EXPECT_EQ(ra.at("subresource"), "pendingworkloads");
  EXPECT_EQ(ra.at("name"), "lq");

  auto allowed = decode_subject_access_review(R"({"status":{"allowed":true}})");
  ASSERT_TRUE(allowed.has_value());
  EXPECT_TRUE(allowed->allowed);
  auto denied = decode_subject_access_review(R"({"status":{"allowed":true,"denied":true,"reason":"no"}})");
  ASSERT_TRUE(denied.has_value());
  EXPECT_FALSE(denied->allowed);
  EXPECT_EQ(denied->reason, "no");
  EXPECT_FALSE(decode_subject_access_review(R"({"kind":"Status"})").has_value());
  EXPECT_FALSE(decode_subject_access_review("not json").has_value());
}

TEST(DelegatedAuth, NonResourceSubjectAccessReviewOnTheWire) {
  ResourceAttributes a;
  a.user = UserInfo{"prometheus", "", {"system:authenticated"}, {}};
  a.verb = "get";
  a.path = "/metrics";
  auto doc = json::parse(encode_subject_access_review(a));
  ASSERT_TRUE(doc.has_value());
  const auto& spec = doc->at("spec").as_object();
  EXPECT_EQ(spec.at("nonResourceAttributes"), (json::object{{"path", "/metrics"}, {"verb", "get"}}));
  EXPECT_FALSE(spec.contains("resourceAttributes"));
  EXPECT_EQ(spec.at("user"), "prometheus");
}

TEST(DelegatedAuth, TokenReviewOnTheWire) {
  auto doc = json::parse(encode_token_review("t0k"));
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->at("apiVersion"), "authentication.k8s.io/v1");
  EXPECT_EQ(doc->at("spec").at("token"), "t0k");
  auto user = decode_token_review(
      R"({"status":{"authenticated":true,"user":{"username":"system:serviceaccount:default:default","uid":"9","groups":["system:serviceaccounts"]}}})");
  ASSERT_TRUE(user.has_value());
  ASSERT_TRUE(user->has_value());
  EXPECT_EQ((*user)->name, "system:serviceaccount:default:default");
  EXPECT_EQ((*user)->groups, std::vector<std::string>{"system:serviceaccounts"});
  auto nobody = decode_token_review(R"({"status":{"authenticated":false,"error":"invalid"}})");
  ASSERT_TRUE(nobody.has_value());
  EXPECT_FALSE(nobody->has_value());
  EXPECT_FALSE(decode_token_review("[]").has_value());
}

/// Answers every question with `allow`, counting the questions.
class CountingAuthorizer : public Authorizer {
 public:
  bool allow = true;
  bool broken = false;
  int calls = 0;
  void authorize(const ResourceAttributes&, Callback done) override {
    ++calls;
    if (broken) {
      done(fail("the API server is down"));
      return;
    }
    done(AuthorizationDecision{allow, allow ? "" : "denied"});
  }
};

TEST(DelegatedAuth, CachesAnswersForTheirTimeToLive) {
  auto inner = std::make_shared<CountingAuthorizer>();
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  CachingAuthorizer cache(inner, std::chrono::seconds(10), [&] { return now; });
  ResourceAttributes a;
  a.user.name = "alice";
  a.resource = "clusterqueues";
  a.name = "cq";
  auto ask = [&](const ResourceAttributes& q) {
    bool result = false;
    cache.authorize(q, [&](Expected<AuthorizationDecision> d) { result = d && d->allowed; });
    return result;
  };
  EXPECT_TRUE(ask(a));
  EXPECT_TRUE(ask(a));
  EXPECT_EQ(inner->calls, 1);
  ResourceAttributes other = a;
  other.name = "cq2";
  EXPECT_TRUE(ask(other));
  EXPECT_EQ(inner->calls, 2);
  ResourceAttributes other_group = a;
  other_group.user.groups = {"g"};
  ask(other_group);
  EXPECT_EQ(inner->calls, 3);
  // Expired: asked again, and the new answer counts.
  inner->allow = false;
  now += std::chrono::seconds(11);
  EXPECT_FALSE(ask(a));
  EXPECT_EQ(inner->calls, 4);
  EXPECT_FALSE(ask(a));
  EXPECT_EQ(inner->calls, 4);
  // Errors are not remembered.
  inner->broken = true;
  now += std::chrono::seconds(11);
  ask(a);
  ask(a);
  EXPECT_EQ(inner->calls, 6);
}

}  // namespace
}  // namespace kueuepp::kube::auth
