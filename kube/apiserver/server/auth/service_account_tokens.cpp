#include "kube/apiserver/server/auth/service_account_tokens.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/base64.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::server::auth {

namespace {

// The clock skew allowed on exp, nbf and iat (go-jose's default leeway, which
// kube-apiserver's validator uses).
constexpr std::int64_t kLeewaySeconds = 60;

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

std::string text_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

std::optional<std::int64_t> seconds_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  // A number out of int64's range (1e300) is no time at all: casting it would be undefined.
  if (v->is_double() && v->get_double() > -9.2e18 && v->get_double() < 9.2e18) {
    return static_cast<std::int64_t>(v->get_double());
  }
  return std::nullopt;
}

/// aud is a string or an array of strings (RFC 7519).
std::vector<std::string> audiences_of(const json::object& claims) {
  std::vector<std::string> out;
  const json::value* aud = claims.if_contains("aud");
  if (aud == nullptr) return out;
  if (aud->is_string()) out.emplace_back(aud->get_string());
  if (aud->is_array()) {
    for (const auto& a : aud->get_array()) {
      if (a.is_string()) out.emplace_back(a.get_string());
    }
  }
  return out;
}

std::optional<json::object> decode_part(std::string_view part) {
  auto bytes = core::base64url_decode(part);
  if (!bytes) return std::nullopt;
  auto doc = json::parse(*bytes);
  if (!doc || !doc->is_object()) return std::nullopt;
  return std::move(doc->get_object());
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? " " : "") + fmt::format("\"{}\"", items[i]);
  return out + "]";
}

TokenCheck rejected(std::string reason) {
  TokenCheck c;
  c.outcome = TokenCheck::Outcome::Rejected;
  c.reason = std::move(reason);
  return c;
}

}  // namespace

UserInfo service_account_user(std::string_view ns, std::string_view name, std::string_view uid) {
  return UserInfo{fmt::format("{}{}:{}", kServiceAccountPrefix, ns, name),
                  std::string(uid),
                  {std::string(kServiceAccountsGroup), fmt::format("{}:{}", kServiceAccountsGroup, ns),
                   std::string(kAuthenticatedGroup)}};
}

ServiceAccountTokens::ServiceAccountTokens(ServiceAccountTokenOptions options) : options_(std::move(options)) {
  if (options_.api_audiences.empty()) options_.api_audiences = {options_.issuer};
}

Expected<std::string> ServiceAccountTokens::issue(const ServiceAccountClaims& claims) const {
  const JwsKey& key = options_.signing_key;
  json::object header{{"alg", key.algorithm()}, {"kid", key.key_id()}};
  json::array audiences;
  for (const auto& a : claims.audiences) audiences.emplace_back(a);
  json::object service_account{{"name", claims.name}, {"uid", claims.uid}};
  json::object kubernetes{{"namespace", claims.ns}, {"serviceaccount", std::move(service_account)}};
  if (claims.bound) {
    std::string field = claims.bound->kind == "Pod" ? "pod" : "secret";
    kubernetes[field] = json::object{{"name", claims.bound->name}, {"uid", claims.bound->uid}};
  }
  json::object payload{{"aud", std::move(audiences)},
                       {"exp", claims.expires},
                       {"iat", claims.issued_at},
                       {"iss", options_.issuer},
                       {"jti", claims.id},
                       {"kubernetes.io", std::move(kubernetes)},
                       {"nbf", claims.issued_at},
                       {"sub", fmt::format("{}{}:{}", kServiceAccountPrefix, claims.ns, claims.name)}};
  std::string signing_input =
      core::base64url_encode(json::dump(header)) + "." + core::base64url_encode(json::dump(payload));
  auto signature = key.sign(signing_input);
  if (!signature) return unexpected(signature.error());
  return signing_input + "." + core::base64url_encode(*signature);
}

TokenCheck ServiceAccountTokens::authenticate(std::string_view token, const std::vector<std::string>& audiences) const {
  // Anything that is not three base64url parts of JSON, or is another issuer's, may be a
  // token of another authenticator (as kube-apiserver's JWT authenticator declines it).
  std::size_t first = token.find('.');
  std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) return {};
  std::optional<json::object> header = decode_part(token.substr(0, first));
  std::optional<json::object> claims = decode_part(token.substr(first + 1, second - first - 1));
  if (!header || !claims || text_at(*claims, "iss") != options_.issuer) return {};

  const std::string alg = text_at(*header, "alg");
  auto signature = core::base64url_decode(token.substr(second + 1));
  if (!signature) return rejected("the signature is not base64url");
  std::string_view signing_input = token.substr(0, second);
  bool verified = false;
  auto try_key = [&](const JwsKey& key) {
    if (!verified && key.algorithm() == alg) verified = key.verify(signing_input, *signature);
  };
  try_key(options_.signing_key);
  for (const auto& key : options_.verification_keys) try_key(key);
  if (!verified) {
    if (alg != "RS256" && alg != "ES256") return rejected(fmt::format("the token is signed with \"{}\", not RS256 or ES256", alg));
    return rejected("the signature does not verify with any of the server's keys");
  }

  const std::int64_t now = options_.now();
  auto exp = seconds_at(*claims, "exp");
  if (!exp) return rejected("the token has no expiry (exp)");
  if (now > *exp + kLeewaySeconds) return rejected("the token has expired");
  if (auto nbf = seconds_at(*claims, "nbf"); nbf && now + kLeewaySeconds < *nbf) return rejected("the token is not valid yet (nbf)");
  if (auto iat = seconds_at(*claims, "iat"); iat && now + kLeewaySeconds < *iat) return rejected("the token is issued in the future (iat)");

  const std::vector<std::string>& wanted = audiences.empty() ? options_.api_audiences : audiences;
  std::vector<std::string> token_audiences = audiences_of(*claims);
  std::vector<std::string> matched;
  for (const auto& a : token_audiences) {
    if (std::find(wanted.begin(), wanted.end(), a) != wanted.end()) matched.push_back(a);
  }
  if (matched.empty()) {
    return rejected(fmt::format("token audiences {} is invalid for the target audiences {}", quoted_list(token_audiences),
                                quoted_list(wanted)));
  }

  const json::object* kubernetes = object_at(*claims, "kubernetes.io");
  const json::object* service_account = kubernetes != nullptr ? object_at(*kubernetes, "serviceaccount") : nullptr;
  if (service_account == nullptr) return rejected("the token names no ServiceAccount (kubernetes.io.serviceaccount)");
  const std::string ns = text_at(*kubernetes, "namespace");
  const std::string name = text_at(*service_account, "name");
  const std::string uid = text_at(*service_account, "uid");
  if (ns.empty() || name.empty() || uid.empty()) return rejected("the token's ServiceAccount claims are incomplete");
  if (text_at(*claims, "sub") != fmt::format("{}{}:{}", kServiceAccountPrefix, ns, name)) {
    return rejected("the token's subject (sub) is not its ServiceAccount");
  }
  std::optional<std::string> live = options_.live_uid("ServiceAccount", ns, name);
  if (!live) return rejected(fmt::format("ServiceAccount {}/{} has been deleted", ns, name));
  if (*live != uid) return rejected(fmt::format("ServiceAccount UID ({}) does not match claim ({})", *live, uid));
  for (std::string_view kind : {"Pod", "Secret"}) {
    std::string field = kind == "Pod" ? "pod" : "secret";
    const json::object* bound = object_at(*kubernetes, field);
    if (bound == nullptr) continue;
    const std::string bound_name = text_at(*bound, "name");
    const std::string bound_uid = text_at(*bound, "uid");
    std::optional<std::string> bound_live = options_.live_uid(kind, ns, bound_name);
    if (!bound_live) return rejected(fmt::format("{} {}/{} has been deleted", kind, ns, bound_name));
    if (*bound_live != bound_uid) {
      return rejected(fmt::format("{} UID ({}) does not match claim ({})", kind, *bound_live, bound_uid));
    }
  }

  TokenCheck check;
  check.outcome = TokenCheck::Outcome::Authenticated;
  check.user = service_account_user(ns, name, uid);
  check.audiences = std::move(matched);
  return check;
}

}  // namespace kueuepp::kube::server::auth
