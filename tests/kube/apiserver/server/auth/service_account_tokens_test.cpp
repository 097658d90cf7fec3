// ServiceAccount tokens as kube-apiserver issues and checks them: a token issued for a
// ServiceAccount authenticates as system:serviceaccount:NS:NAME while it is signed by a
// key of the server, unexpired, for the audience asked, and its ServiceAccount (and
// bound object) still exists with the uid it names; anything else is refused with a
// reason, or left to other authenticators when it is not this issuer's JWT at all.

#include <map>

#include <gtest/gtest.h>

#include "core/base64.hpp"
#include "kube/apiserver/server/auth/service_account_tokens.hpp"
#include "kube/apiserver/server/auth/token_authenticator.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::server::auth {
namespace {

using Outcome = TokenCheck::Outcome;

// An RSA key as `openssl genrsa 2048` writes it (PKCS#1), for RS256.
constexpr std::string_view kRsaKey = R"(-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEAtKBhkccwXf/FzpDbK6aSfgXA0/LsY4BD/DHLqwZm/NOYiopC
ZKX+2NP3K2o2wLlmUPpF4MeNB6VdoJHeQs1eOycxF4PJm9Y5fFT+Bqz7ibH4nTCz
e8C4WZIa7zxbrwWBoIo8nsCf5qaBwXgx187quETel9rszAFHK2orJZOTiq+5Ysx9
+C/cGnRl0Wl/RiLsB5yjFMwMP43VJXKQjXSCIx9s5DUq8qmj1ZXyQjJ9rM1UN5Wc
osppdGNEuviUnYIq8J8dw73LKXnF86g+oQ9KXsRz/AjeMc/874UYqi3UIDjFwa4c
TmK5RheSy8dmRF3KEVq/T/9ERUwUDy4fkS5WxQIDAQABAoIBAAp9uD0N2zbSeMw/
KKO36JFORz1oQiejVw+KWuCDni64IYeGcUXESHGSmiwY3rZB7nnsl2tvW7cieTYu
0sCBiiQYaicJ/gdBoZQhoaGEoZWFU0HaBsq8zlhRfqP/lvmq8bT/4nZ8DK2KZUX1
87srpwFt6pnaWt+cgWQ5pejoUez/n7zCTclB/XpikdIgBLurn1y7pnDnQvL2Kc9U
ODqWWFy6kQC36jtEhqWy5Q3fHZOecWoECwDREjwPP+5q9f8dwiYyWm0PxVbNBnZO
WilTmcSsEu08v4NYKZ94CzgNYj6RSm5GK1f31M5BJy5viEg9BKZSrdR3ouYf2u49
DvH4fl8CgYEA8BULpxqepZ6vLSXqimxpvuX2gSomxjvnuqNfL62wCl51rG6Sb769
DNKZcZnD9ss0o4VLWWF8U6iPfTWc1PzXljJCuMEIPMlrnRmIWLnl/EWN0LxQTyRi
SVinOx7QEoxrLeklKpbWKdzjwV+nq1ZC3x8++75UM/p4F046Bo6omicCgYEAwJov
GSO6QVHVr0IWST2jURaNItrCmxvAajzNf437fAipO1iN2jpc+dvox8Kuyn0eWqYE
7FbsBrj/U5k0lEcRU4th9+XPhcurey55C2sYSJlXe/xSP+OVyWd5tmV+5GJel3Ae
CXtYdDwcnrUUWYdsM3SgCoLxJpG6zBbwDNXE9zMCgYEAsKFLKW3UOlU83CKBI8YP
JntZmD3CuSVpn06CwTkvwvEr8eiHo97Yh46JhaJzIibuWz+958xpA8OHjb7b23cJ
xV7E59hcjxxBKBuYzG44Xhlt9JwXGaLTDNNEdaJ9wqe8UtKsnWDLv5Dbn3EYkl2s
ZSs/00Z7/KHRqJPM7PYX5RECgYAg6LdvdjlW++KlJYelUBDdxBqtf++MjTtda7I5
P0tfMCOqbkEerqZAUyD9MPioxKQxHPjuYRPHOkj2QdFIHLSLL9+3ed7xn5FXZONt
3giyLvFR0BVFsV9goHudfM4nu98pxRB80kSU58iEHbCyc387c4v8/86wpmnigXDW
4JfdHQKBgQDhd8fLPvl8WbTC5uxi8O3CVxFTBsu64RM0wsd8M/g0jBC90iBJxw9G
5F0RrEqtqG47BaQo7oNXkqj9UqCp0/HB5M2bIYTo/lH4Fqwm7j8S9H2Tb9YPxnoU
+CYNsSAtFsARxVZ3Inl6qijNIPltSdue7iEx5Sa1Jm3JPDNy2Flgew==
-----END RSA PRIVATE KEY-----
)";

class ServiceAccountTokensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto key = JwsKey::generate();
    ASSERT_TRUE(key) << key.error().message;
    key_ = *key;
    live_[{"ServiceAccount", "team/runner"}] = "sa-uid-1";
    live_[{"Pod", "team/p1"}] = "pod-uid-1";
  }

  ServiceAccountTokens tokens(JwsKey key, std::vector<JwsKey> more = {}) {
    ServiceAccountTokenOptions o;
    o.signing_key = std::move(key);
    o.verification_keys = std::move(more);
    o.live_uid = [this](std::string_view kind, std::string_view ns, std::string_view name) -> std::optional<std::string> {
      auto it = live_.find({std::string(kind), std::string(ns) + "/" + std::string(name)});
      if (it == live_.end()) return std::nullopt;
      return it->second;
    };
    o.now = [this] { return now_; };
    return ServiceAccountTokens(std::move(o));
  }
  ServiceAccountTokens tokens() { return tokens(key_); }

  ServiceAccountClaims claims() const {
    ServiceAccountClaims c;
    c.ns = "team";
    c.name = "runner";
    c.uid = "sa-uid-1";
    c.audiences = {std::string(kDefaultServiceAccountIssuer)};
    c.issued_at = now_;
    c.expires = now_ + 3600;
    c.id = "jti-1";
    return c;
  }

  std::string issue(const ServiceAccountTokens& t, const ServiceAccountClaims& c) {
    auto token = t.issue(c);
    EXPECT_TRUE(token) << token.error().message;
    return token ? *token : std::string();
  }

  JwsKey key_;
  std::map<std::pair<std::string, std::string>, std::string> live_;
  std::int64_t now_ = 1'800'000'000;
};

json::object part(std::string_view token, int index) {
  std::size_t start = 0;
  for (int i = 0; i < index; ++i) start = token.find('.', start) + 1;
  std::size_t end = token.find('.', start);
  auto bytes = core::base64url_decode(token.substr(start, end - start));
  auto doc = json::parse(bytes.value_or(""));
  return doc && doc->is_object() ? doc->get_object() : json::object{};
}

TEST_F(ServiceAccountTokensTest, AnIssuedTokenAuthenticatesAsItsServiceAccount) {
  ServiceAccountTokens t = tokens();
  std::string token = issue(t, claims());
  TokenCheck check = t.authenticate(token);
  ASSERT_EQ(check.outcome, Outcome::Authenticated) << check.reason;
  EXPECT_EQ(check.user.name, "system:serviceaccount:team:runner");
  EXPECT_EQ(check.user.uid, "sa-uid-1");
  EXPECT_EQ(check.user.groups,
            (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}));
  EXPECT_EQ(check.audiences, std::vector<std::string>{std::string(kDefaultServiceAccountIssuer)});
}

TEST_F(ServiceAccountTokensTest, ClaimsAreKubeApiserversClaims) {
  ServiceAccountTokens t = tokens();
  std::string token = issue(t, claims());
  json::object header = part(token, 0);
  EXPECT_EQ(json::dump(header["alg"]), "\"ES256\"");
  EXPECT_EQ(header["kid"].as_string(), key_.key_id());
  json::object payload = part(token, 1);
  EXPECT_EQ(payload["iss"].as_string(), kDefaultServiceAccountIssuer);
  EXPECT_EQ(payload["sub"].as_string(), "system:serviceaccount:team:runner");
  EXPECT_EQ(json::dump(payload["aud"]), "[\"https://kubernetes.default.svc.cluster.local\"]");
  EXPECT_EQ(payload["iat"].as_int64(), now_);
  EXPECT_EQ(payload["nbf"].as_int64(), now_);
  EXPECT_EQ(payload["exp"].as_int64(), now_ + 3600);
  EXPECT_EQ(payload["jti"].as_string(), "jti-1");
  EXPECT_EQ(json::dump(payload["kubernetes.io"]),
            R"({"namespace":"team","serviceaccount":{"name":"runner","uid":"sa-uid-1"}})");
}

TEST_F(ServiceAccountTokensTest, ExpiryAndNotBeforeAllowAMinuteOfSkew) {
  ServiceAccountTokens t = tokens();
  std::string token = issue(t, claims());
  now_ += 3600 + 60;
  EXPECT_EQ(t.authenticate(token).outcome, Outcome::Authenticated);
  now_ += 1;
  TokenCheck expired = t.authenticate(token);
  EXPECT_EQ(expired.outcome, Outcome::Rejected);
  EXPECT_EQ(expired.reason, "the token has expired");

  now_ = 1'800'000'000 - 61;
  TokenCheck early = t.authenticate(token);
  EXPECT_EQ(early.outcome, Outcome::Rejected);
  EXPECT_EQ(early.reason, "the token is not valid yet (nbf)");
}

TEST_F(ServiceAccountTokensTest, TheAudienceMustBeOneAskedFor) {
  ServiceAccountTokens t = tokens();
  ServiceAccountClaims c = claims();
  c.audiences = {"vault"};
  std::string token = issue(t, c);
  TokenCheck check = t.authenticate(token);
  EXPECT_EQ(check.outcome, Outcome::Rejected);
  EXPECT_EQ(check.reason,
            R"(token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"])");
  TokenCheck for_vault = t.authenticate(token, {"vault", "other"});
  EXPECT_EQ(for_vault.outcome, Outcome::Authenticated);
  EXPECT_EQ(for_vault.audiences, std::vector<std::string>{"vault"});
}

TEST_F(ServiceAccountTokensTest, ADeletedOrRecreatedServiceAccountsTokensStopWorking) {
  ServiceAccountTokens t = tokens();
  std::string token = issue(t, claims());
  live_[{"ServiceAccount", "team/runner"}] = "sa-uid-2";
  TokenCheck recreated = t.authenticate(token);
  EXPECT_EQ(recreated.outcome, Outcome::Rejected);
  EXPECT_EQ(recreated.reason, "ServiceAccount UID (sa-uid-2) does not match claim (sa-uid-1)");
  live_.erase({"ServiceAccount", "team/runner"});
  TokenCheck deleted = t.authenticate(token);
  EXPECT_EQ(deleted.outcome, Outcome::Rejected);
  EXPECT_EQ(deleted.reason, "ServiceAccount team/runner has been deleted");
}

TEST_F(ServiceAccountTokensTest, ATokenBoundToAPodLivesWithThePod) {
  ServiceAccountTokens t = tokens();
  ServiceAccountClaims c = claims();
  c.bound = BoundObject{"Pod", "p1", "pod-uid-1"};
  std::string token = issue(t, c);
  EXPECT_EQ(json::dump(part(token, 1)["kubernetes.io"].as_object()["pod"]), R"({"name":"p1","uid":"pod-uid-1"})");
  EXPECT_EQ(t.authenticate(token).outcome, Outcome::Authenticated);
  live_.erase({"Pod", "team/p1"});
  TokenCheck gone = t.authenticate(token);
  EXPECT_EQ(gone.outcome, Outcome::Rejected);
  EXPECT_EQ(gone.reason, "Pod team/p1 has been deleted");
}

TEST_F(ServiceAccountTokensTest, AnotherKeysTokenIsRefusedUnlessThatKeyVerifies) {
  auto other = JwsKey::generate();
  ASSERT_TRUE(other);
  std::string foreign = issue(tokens(*other), claims());
  TokenCheck check = tokens().authenticate(foreign);
  EXPECT_EQ(check.outcome, Outcome::Rejected);
  EXPECT_EQ(check.reason, "the signature does not verify with any of the server's keys");
  // kube-apiserver's --service-account-key-file: a previous key still verifies.
  EXPECT_EQ(tokens(key_, {*other}).authenticate(foreign).outcome, Outcome::Authenticated);
}

TEST_F(ServiceAccountTokensTest, AnRsaKeySignsRs256) {
  auto keys = JwsKey::from_pem(kRsaKey, "rsa.pem");
  ASSERT_TRUE(keys) << keys.error().message;
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_EQ((*keys)[0].algorithm(), "RS256");
  EXPECT_TRUE((*keys)[0].can_sign());
  ServiceAccountTokens t = tokens((*keys)[0]);
  std::string token = issue(t, claims());
  EXPECT_EQ(json::dump(part(token, 0)["alg"]), "\"RS256\"");
  EXPECT_EQ(t.authenticate(token).outcome, Outcome::Authenticated);
  // The same key's public half verifies it too; an ES256 key does not.
  auto pem = (*keys)[0].private_pem();
  ASSERT_TRUE(pem);
  EXPECT_EQ(tokens(key_).authenticate(token).outcome, Outcome::Rejected);
}

TEST_F(ServiceAccountTokensTest, KeyFilesThatHoldNoUsableKeySaySo) {
  EXPECT_EQ(JwsKey::from_pem("", "empty.pem").error().message,
            "empty.pem: holds no PEM private key, public key or certificate");
  EXPECT_EQ(JwsKey::from_pem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "bad.pem")
                .error()
                .message.rfind("bad.pem: PEM block 1 is a PUBLIC KEY block that does not parse", 0),
            0u);
  EXPECT_EQ(JwsKey::from_file("/nonexistent/sa.key").error().message, "cannot read the key file /nonexistent/sa.key");
  auto round_trip = JwsKey::from_pem(*key_.private_pem(), "generated");
  ASSERT_TRUE(round_trip);
  EXPECT_EQ((*round_trip)[0].key_id(), key_.key_id());
}

// Whatever a client sends, the answer is an outcome, never a crash: tokens cut short,
// parts that are not base64url or not JSON, another issuer's, alg "none", a signature
// of the wrong length, claims of the wrong types.
TEST_F(ServiceAccountTokensTest, MalformedTokensAreRefusedOrNotOurs) {
  ServiceAccountTokens t = tokens();
  std::string token = issue(t, claims());
  for (std::size_t n = 0; n < token.size(); n += 7) {
    EXPECT_NE(t.authenticate(token.substr(0, n)).outcome, Outcome::Authenticated) << n;
  }
  EXPECT_NE(t.authenticate(token.substr(0, token.size() - 1)).outcome, Outcome::Authenticated);
  for (std::string_view bad : {"", ".", "..", "...", "a.b.c", "!!!.###.$$$", "e30.e30.", "e30.e30.e30"}) {
    EXPECT_EQ(t.authenticate(bad).outcome, Outcome::NotOurs) << bad;
  }
  std::size_t dot1 = token.find('.');
  std::size_t dot2 = token.find('.', dot1 + 1);
  std::string payload = token.substr(dot1 + 1, dot2 - dot1 - 1);

  std::string unsigned_token = core::base64url_encode(R"({"alg":"none"})") + "." + payload + ".";
  TokenCheck none = t.authenticate(unsigned_token);
  EXPECT_EQ(none.outcome, Outcome::Rejected);
  EXPECT_EQ(none.reason, "the token is signed with \"none\", not RS256 or ES256");

  std::string hs = core::base64url_encode(R"({"alg":"HS256"})") + "." + payload + "." + core::base64url_encode("x");
  EXPECT_EQ(t.authenticate(hs).outcome, Outcome::Rejected);
  EXPECT_EQ(t.authenticate(token.substr(0, dot2) + ".!!").reason, "the signature is not base64url");
  EXPECT_EQ(t.authenticate(token.substr(0, dot2) + "." + core::base64url_encode(std::string(64, 'x'))).outcome,
            Outcome::Rejected);
  EXPECT_EQ(t.authenticate(token.substr(0, dot2) + ".AAAA").outcome, Outcome::Rejected);

  // A payload changed after signing: the signature no longer verifies.
  json::object changed = part(token, 1);
  changed["sub"] = "system:serviceaccount:team:admin";
  std::string forged = token.substr(0, dot1) + "." + core::base64url_encode(json::dump(changed)) + token.substr(dot2);
  EXPECT_EQ(t.authenticate(forged).reason, "the signature does not verify with any of the server's keys");

  // Another issuer's JWT is for another authenticator.
  json::object elsewhere = part(token, 1);
  elsewhere["iss"] = "https://accounts.example.com";
  EXPECT_EQ(t.authenticate(token.substr(0, dot1) + "." + core::base64url_encode(json::dump(elsewhere)) + token.substr(dot2))
                .outcome,
            Outcome::NotOurs);
}

TEST_F(ServiceAccountTokensTest, SignedClaimsOfTheWrongShapeAreRefused) {
  ServiceAccountTokens t = tokens();
  auto sign = [&](const json::object& payload) {
    std::string input = core::base64url_encode(json::dump(json::object{{"alg", "ES256"}})) + "." +
                        core::base64url_encode(json::dump(payload));
    return input + "." + core::base64url_encode(*key_.sign(input));
  };
  std::string iss(kDefaultServiceAccountIssuer);
  json::object good{{"iss", iss}, {"aud", iss}, {"exp", now_ + 10}, {"sub", "system:serviceaccount:team:runner"},
                    {"kubernetes.io", json::object{{"namespace", "team"},
                                                   {"serviceaccount", json::object{{"name", "runner"}, {"uid", "sa-uid-1"}}}}}};
  EXPECT_EQ(t.authenticate(sign(good)).outcome, Outcome::Authenticated) << t.authenticate(sign(good)).reason;
  json::object no_exp = good;
  no_exp.erase("exp");
  EXPECT_EQ(t.authenticate(sign(no_exp)).reason, "the token has no expiry (exp)");
  json::object string_exp = good;
  string_exp["exp"] = "tomorrow";
  EXPECT_EQ(t.authenticate(sign(string_exp)).reason, "the token has no expiry (exp)");
  json::object huge_exp = good;
  huge_exp["exp"] = 1e300;
  EXPECT_EQ(t.authenticate(sign(huge_exp)).reason, "the token has no expiry (exp)");
  json::object fractional_exp = good;
  fractional_exp["exp"] = static_cast<double>(now_) + 10.5;
  EXPECT_EQ(t.authenticate(sign(fractional_exp)).outcome, Outcome::Authenticated);
  json::object no_sa = good;
  no_sa["kubernetes.io"] = 5;
  EXPECT_EQ(t.authenticate(sign(no_sa)).reason, "the token names no ServiceAccount (kubernetes.io.serviceaccount)");
  json::object other_sub = good;
  other_sub["sub"] = "system:serviceaccount:team:admin";
  EXPECT_EQ(t.authenticate(sign(other_sub)).reason, "the token's subject (sub) is not its ServiceAccount");
}

TEST_F(ServiceAccountTokensTest, TheBearerTokenAuthenticatorFallsBackToServiceAccountTokens) {
  auto t = std::make_shared<ServiceAccountTokens>(tokens());
  TokenAuthenticator a("master");
  std::string token = issue(*t, claims());
  EXPECT_FALSE(a.authenticate_header("Bearer " + token));
  a.set_service_account_tokens(t);
  auto user = a.authenticate_header("Bearer " + token);
  ASSERT_TRUE(user);
  EXPECT_EQ(user->name, "system:serviceaccount:team:runner");
  EXPECT_FALSE(user->is_master());
  EXPECT_TRUE(a.authenticate_header("Bearer master")->is_master());
}

}  // namespace
}  // namespace kueuepp::kube::server::auth
