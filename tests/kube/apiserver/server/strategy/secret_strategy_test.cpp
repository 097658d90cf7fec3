// core/v1 Secret: type Opaque, base64 data (400 otherwise), stringData folded into
// data, type-specific keys, the immutable type and immutable Secrets, the type field
// selector, over HTTP.

#include "tests/kube/apiserver/server/strategy/builtin_kind_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kSecrets = "/api/v1/namespaces/team/secrets";
constexpr std::string_view kSecret = "/api/v1/namespaces/team/secrets/s";

std::string secret(std::string_view rest) {
  return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n" + std::string(rest);
}

class SecretStrategy : public BuiltinKindTest {};

TEST_F(SecretStrategy, DefaultsToOpaqueAndFoldsStringData) {
  json::value created = create_yaml(kSecrets, secret("data: {user: YWRtaW4=, token: b2xk}\nstringData: {token: new, note: hi}\n"));
  EXPECT_EQ(str(created, "/type"), "Opaque");
  EXPECT_EQ(str(created, "/data/user"), "YWRtaW4=");
  EXPECT_EQ(str(created, "/data/token"), "bmV3");  // stringData wins over data
  EXPECT_EQ(str(created, "/data/note"), "aGk=");
  EXPECT_EQ(at(created, "/stringData"), nullptr);
  EXPECT_EQ(at(get_ok(kSecret), "/stringData"), nullptr);
}

TEST_F(SecretStrategy, DataMustBeBase64) {
  json::value status = expect(400, post_yaml(kSecrets, secret("data: {user: 'not base64!'}\n")));
  EXPECT_EQ(str(status, "/reason"), "BadRequest");
  EXPECT_EQ(str(status, "/message"), "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 3");
  auto keys = invalid(post_yaml(kSecrets, secret("data: {'bad/key': YQ==}\n")));
  EXPECT_TRUE(any_contains(keys, "data[bad/key]: Invalid value: \"bad/key\": a valid config key must consist of"));
}

TEST_F(SecretStrategy, BuiltInTypesNeedTheirKeys) {
  auto tls = invalid(post_yaml(kSecrets, secret("type: kubernetes.io/tls\ndata: {tls.crt: YQ==}\n")));
  EXPECT_EQ(tls, std::vector<std::string>{"data[tls.key]: Required value"});
  create_yaml(kSecrets, secret("type: kubernetes.io/tls\ndata: {tls.crt: YQ==, tls.key: Yg==}\n"));
  json::value list = get_ok(std::string(kSecrets) + "?fieldSelector=type%3Dkubernetes.io%2Ftls");
  EXPECT_EQ(item_names(list), std::vector<std::string>{"s"});
  EXPECT_TRUE(item_names(get_ok(std::string(kSecrets) + "?fieldSelector=type%3DOpaque")).empty());
}

TEST_F(SecretStrategy, TypeAndImmutableContentCannotChange) {
  create_yaml(kSecrets, secret("data: {a: YQ==}\nimmutable: true\n"));
  auto type = invalid(api().patch(kSecret, json::object{{"type", "kubernetes.io/basic-auth"}, {"data", json::object{{"username", "dQ=="}}}}));
  EXPECT_TRUE(any_contains(type, "type: Invalid value: \"kubernetes.io/basic-auth\": field is immutable"));
  auto data = invalid(api().patch(kSecret, json::object{{"data", json::object{{"a", "Yg=="}}}}));
  EXPECT_EQ(data, std::vector<std::string>{"data: Forbidden: field is immutable when `immutable` is set"});
  auto unset = invalid(api().patch(kSecret, json::object{{"immutable", false}}));
  EXPECT_EQ(unset, std::vector<std::string>{"immutable: Forbidden: field is immutable when `immutable` is set"});
  // Labels may still change.
  expect(200, api().patch(kSecret, json::object{{"metadata", json::object{{"labels", json::object{{"k", "v"}}}}}}));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
