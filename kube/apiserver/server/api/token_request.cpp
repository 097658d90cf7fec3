#include "kube/apiserver/server/api/token_request.hpp"

#include <fmt/format.h>

#include "core/model/time.hpp"
#include "kube/apiserver/server/util/ids.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kAuthenticationGroup = "authentication.k8s.io";
constexpr std::int64_t kDefaultExpirationSeconds = 3600;
// kube-apiserver's ValidateTokenRequest bounds.
constexpr std::int64_t kMinExpirationSeconds = 600;
constexpr std::int64_t kMaxExpirationSeconds = std::int64_t{1} << 32;

std::string text_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

json::object* object_at(json::object& o, std::string_view key) {
  json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

const char* bucket_of_kind(std::string_view kind) {
  if (kind == "ServiceAccount") return "/serviceaccounts";
  if (kind == "Pod") return "/pods";
  if (kind == "Secret") return "/secrets";
  return nullptr;
}

/// The stored object, being deleted or not (null: none stored).
ObjectPtr stored(ServerContext& ctx, std::string_view kind, std::string_view ns, std::string_view name) {
  const char* bucket = bucket_of_kind(kind);
  if (bucket == nullptr) return nullptr;
  return ctx.store.get(ctx.store.bucket(bucket), fmt::format("{}/{}", ns, name));
}

std::string meta_text(const json::value& doc, std::string_view key) {
  const json::value* meta = doc.is_object() ? doc.get_object().if_contains("metadata") : nullptr;
  return meta != nullptr && meta->is_object() ? text_at(meta->get_object(), key) : std::string();
}

/// The body's spec.expirationSeconds, defaulted; an error for a value that is not an
/// integer (kube-apiserver's decoder refuses it).
ApiResult<std::int64_t> expiration_seconds(const json::object& spec) {
  const json::value* v = spec.if_contains("expirationSeconds");
  if (v == nullptr || v->is_null()) return kDefaultExpirationSeconds;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return v->get_uint64() > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX
                                                                                      : static_cast<std::int64_t>(v->get_uint64());
  return api_fail(bad_request(fmt::format("TokenRequest in version \"v1\" cannot be handled as a TokenRequest: "
                                          "spec.expirationSeconds must be an integer, not {}",
                                          json::dump(*v))));
}

/// The bound object a boundObjectRef names (a Pod or Secret of `ns` that exists, with
/// the uid given if one is), or kube-apiserver's error.
ApiResult<auth::BoundObject> bound_object(ServerContext& ctx, const json::object& ref, std::string_view ns) {
  const std::string kind = text_at(ref, "kind");
  const std::string api_version = text_at(ref, "apiVersion");
  if ((kind != "Pod" && kind != "Secret") || (!api_version.empty() && api_version != "v1")) {
    return api_fail(bad_request(fmt::format("cannot bind token for object of type {}, {}: only v1 Pod and v1 Secret",
                                            api_version.empty() ? "v1" : api_version, kind.empty() ? "(no kind)" : kind)));
  }
  auth::BoundObject bound{kind, text_at(ref, "name"), text_at(ref, "uid")};
  std::string resource = kind == "Pod" ? "pods" : "secrets";
  ObjectPtr object = stored(ctx, kind, ns, bound.name);
  if (!object) return api_fail(not_found({"", resource, bound.name}));
  std::string uid = meta_text(object->doc, "uid");
  if (!bound.uid.empty() && bound.uid != uid) {
    return api_fail(conflict({"", kind, bound.name},
                             fmt::format("the UID in the bound object reference ({}) does not match the UID in record. "
                                         "The object might have been deleted and then recreated",
                                         bound.uid)));
  }
  bound.uid = std::move(uid);
  return bound;
}

}  // namespace

std::optional<std::string> live_object_uid(ServerContext& ctx, std::string_view kind, std::string_view ns,
                                           std::string_view name) {
  ObjectPtr object = stored(ctx, kind, ns, name);
  if (!object || !meta_text(object->doc, "deletionTimestamp").empty()) return std::nullopt;
  return meta_text(object->doc, "uid");
}

ApiResult<json::value> create_token_request(ServerContext& ctx, const auth::ServiceAccountTokens& tokens,
                                            std::string_view ns, std::string_view name, std::string_view body) {
  auto parsed = json::parse(body);
  if (!parsed || !parsed->is_object()) {
    return api_fail(bad_request("the TokenRequest body is not a JSON object: " +
                                (parsed ? std::string("a JSON value of another type") : parsed.error().message)));
  }
  json::object request = std::move(parsed->get_object());
  if (std::string kind = text_at(request, "kind"); !kind.empty() && kind != "TokenRequest") {
    return api_fail(bad_request(fmt::format("the body of a ServiceAccount's token subresource must be a TokenRequest, not {}", kind)));
  }
  ObjectPtr account = stored(ctx, "ServiceAccount", ns, name);
  if (!account) return api_fail(not_found({"", "serviceaccounts", name}));

  json::object* meta = object_at(request, "metadata");
  if (meta == nullptr) meta = &request.emplace("metadata", json::object{}).first->value().get_object();
  if (std::string given = text_at(*meta, "name"); !given.empty() && given != name) {
    return api_fail(bad_request(fmt::format("the TokenRequest's name \"{}\" is not the ServiceAccount's \"{}\"", given, name)));
  }
  (*meta)["name"] = name;
  (*meta)["namespace"] = ns;
  json::object* spec = object_at(request, "spec");
  if (spec == nullptr) spec = &request.emplace("spec", json::object{}).first->value().get_object();

  auto seconds = expiration_seconds(*spec);
  if (!seconds) return api_fail(seconds.error());
  FieldErrors errors;
  if (*seconds < kMinExpirationSeconds) {
    errors.push_back(invalid_error("spec.expirationSeconds", json::value(*seconds),
                                   "may not specify a duration less than 10 minutes"));
  }
  if (*seconds > kMaxExpirationSeconds) {
    errors.push_back(invalid_error("spec.expirationSeconds", json::value(*seconds),
                                   "may not specify a duration larger than 2^32 seconds"));
  }
  if (!errors.empty()) return api_fail(invalid(kAuthenticationGroup, "TokenRequest", "", errors));

  auth::ServiceAccountClaims claims;
  claims.ns = ns;
  claims.name = name;
  claims.uid = meta_text(account->doc, "uid");
  if (const json::value* audiences = spec->if_contains("audiences"); audiences != nullptr && audiences->is_array()) {
    for (const auto& a : audiences->get_array()) {
      if (a.is_string()) claims.audiences.emplace_back(a.get_string());
    }
  }
  if (claims.audiences.empty()) claims.audiences = tokens.api_audiences();
  if (json::object* ref = object_at(*spec, "boundObjectRef"); ref != nullptr) {
    auto bound = bound_object(ctx, *ref, ns);
    if (!bound) return api_fail(bound.error());
    (*ref)["uid"] = bound->uid;
    claims.bound = std::move(*bound);
  }
  claims.issued_at = tokens.now();
  claims.expires = claims.issued_at + *seconds;
  claims.id = new_uid();
  auto token = tokens.issue(claims);
  if (!token) return api_fail(internal_error("cannot sign the ServiceAccount token: " + token.error().message));

  json::array audiences;
  for (const auto& a : claims.audiences) audiences.emplace_back(a);
  (*spec)["audiences"] = std::move(audiences);
  (*spec)["expirationSeconds"] = *seconds;
  if (!spec->contains("boundObjectRef")) (*spec)["boundObjectRef"] = nullptr;
  (*meta)["creationTimestamp"] = core::format_rfc3339(core::time_from_seconds(claims.issued_at));
  request["apiVersion"] = "authentication.k8s.io/v1";
  request["kind"] = "TokenRequest";
  request["status"] = json::object{{"token", *token},
                                   {"expirationTimestamp", core::format_rfc3339(core::time_from_seconds(claims.expires))}};
  return json::value(std::move(request));
}

}  // namespace kueuepp::kube::server
