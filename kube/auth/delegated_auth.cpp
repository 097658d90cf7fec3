#include "kube/auth/delegated_auth.hpp"

#include "kube/json/json.hpp"

namespace kueuepp::kube::auth {

namespace {

/// A ConfigMap list value: a JSON array of strings in a string.
Expected<std::optional<std::vector<std::string>>> string_list(const json::object& data, std::string_view key) {
  const json::value* v = json::find(data, key);
  if (v == nullptr) return std::optional<std::vector<std::string>>{};
  if (!v->is_string()) return fail(std::string(key) + " is not a string");
  std::string_view text(v->as_string().data(), v->as_string().size());
  if (text.empty()) return std::optional<std::vector<std::string>>(std::vector<std::string>{});
  auto parsed = json::parse(text);
  if (!parsed || !parsed->is_array()) return fail(std::string(key) + " is not a JSON array of strings");
  std::vector<std::string> out;
  for (const auto& item : parsed->as_array()) {
    if (!item.is_string()) return fail(std::string(key) + " is not a JSON array of strings");
    out.emplace_back(item.as_string().data(), item.as_string().size());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

json::array strings(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& v : values) out.push_back(json::value(v));
  return out;
}

std::vector<std::string> string_array(const json::value* v) {
  std::vector<std::string> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& item : v->as_array()) {
    if (item.is_string()) out.emplace_back(item.as_string().data(), item.as_string().size());
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

json::object resource_attributes(const ResourceAttributes& a) {
  json::object ra;
  if (!a.ns.empty()) ra["namespace"] = a.ns;
  ra["verb"] = a.verb;
  ra["group"] = a.group;
  ra["version"] = a.version;
  ra["resource"] = a.resource;
  if (!a.subresource.empty()) ra["subresource"] = a.subresource;
  if (!a.name.empty()) ra["name"] = a.name;
  return ra;
}

std::string cache_key(const ResourceAttributes& a) {
  // Everything the decision depends on, each part quoted so no two questions collide.
  json::object o;
  o["u"] = a.user.name;
  o["i"] = a.user.uid;
  o["g"] = strings(a.user.groups);
  json::object extra;
  for (const auto& [k, v] : a.user.extra) extra[k] = strings(v);
  o["e"] = std::move(extra);
  o["a"] = json::array{json::value(a.verb), json::value(a.group), json::value(a.version), json::value(a.resource),
                       json::value(a.subresource), json::value(a.name), json::value(a.ns), json::value(a.path)};
  return json::dump(o);
}

}  // namespace

Expected<RequestHeaderConfig> request_header_config(std::string_view configmap_json) {
  auto doc = json::parse(configmap_json);
  if (!doc) return fail("ConfigMap kube-system/extension-apiserver-authentication: " + doc.error().message);
  const json::value* data = json::find(*doc, "data");
  RequestHeaderConfig config;
  if (data == nullptr || !data->is_object()) return config;
  const json::object& d = data->as_object();
  config.client_ca_pem = std::string(json::get_string(d, "requestheader-client-ca-file"));
  struct ListKey {
    std::string_view key;
    std::vector<std::string>* into;
  };
  for (const ListKey& k : {ListKey{"requestheader-allowed-names", &config.allowed_names},
                           ListKey{"requestheader-username-headers", &config.username_headers},
                           ListKey{"requestheader-uid-headers", &config.uid_headers},
                           ListKey{"requestheader-group-headers", &config.group_headers},
                           ListKey{"requestheader-extra-headers-prefix", &config.extra_header_prefixes}}) {
    auto list = string_list(d, k.key);
    if (!list) {
      return fail("ConfigMap kube-system/extension-apiserver-authentication: " + list.error().message +
                  "; fix the ConfigMap (kube-apiserver writes it from its --requestheader-* flags)");
    }
    if (*list) *k.into = std::move(**list);
  }
  return config;
}

bool proxy_name_allowed(const RequestHeaderConfig& config, std::string_view common_name) {
  if (config.allowed_names.empty()) return true;
  for (const auto& n : config.allowed_names) {
    if (n == common_name) return true;
  }
  return false;
}

std::optional<UserInfo> user_from_request_headers(const http::Headers& headers, const RequestHeaderConfig& config) {
  UserInfo user;
  for (const auto& h : config.username_headers) {
    if (auto v = http::find_header(headers, h); v && !v->empty()) {
      user.name = std::string(*v);
      break;
    }
  }
  if (user.name.empty()) return std::nullopt;
  for (const auto& h : config.uid_headers) {
    if (auto v = http::find_header(headers, h); v && !v->empty()) {
      user.uid = std::string(*v);
      break;
    }
  }
  for (const auto& h : config.group_headers) {
    for (auto v : http::find_headers(headers, h)) user.groups.emplace_back(v);
  }
  for (const auto& prefix : config.extra_header_prefixes) {
    const std::string p = lower(prefix);
    for (const auto& [name, value] : headers) {
      std::string n = lower(name);
      if (n.size() > p.size() && n.compare(0, p.size(), p) == 0) user.extra[n.substr(p.size())].push_back(value);
    }
  }
  return user;
}

std::optional<std::string> bearer_token(const http::Headers& headers) {
  auto v = http::find_header(headers, "Authorization");
  if (!v) return std::nullopt;
  std::string_view s = *v;
  if (s.size() <= 7 || lower(s.substr(0, 7)) != "bearer ") return std::nullopt;
  s.remove_prefix(7);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  return std::string(s);
}

std::string encode_subject_access_review(const ResourceAttributes& a) {
  json::object spec;
  if (!a.path.empty()) {
    spec["nonResourceAttributes"] = json::object{{"path", a.path}, {"verb", a.verb}};
  } else {
    spec["resourceAttributes"] = resource_attributes(a);
  }
  spec["user"] = a.user.name;
  if (!a.user.uid.empty()) spec["uid"] = a.user.uid;
  spec["groups"] = strings(a.user.groups);
  if (!a.user.extra.empty()) {
    json::object extra;
    for (const auto& [k, v] : a.user.extra) extra[k] = strings(v);
    spec["extra"] = std::move(extra);
  }
  json::object o;
  o["apiVersion"] = "authorization.k8s.io/v1";
  o["kind"] = "SubjectAccessReview";
  o["metadata"] = json::object{};
  o["spec"] = std::move(spec);
  return json::dump(o);
}

Expected<AuthorizationDecision> decode_subject_access_review(std::string_view body) {
  auto doc = json::parse(body);
  if (!doc) return fail("SubjectAccessReview answer: " + doc.error().message);
  const json::value* status = json::find(*doc, "status");
  if (status == nullptr || !status->is_object()) return fail("SubjectAccessReview answer has no status");
  AuthorizationDecision d;
  const json::value* allowed = json::find(*status, "allowed");
  const json::value* denied = json::find(*status, "denied");
  d.allowed = allowed != nullptr && allowed->is_bool() && allowed->as_bool() &&
              !(denied != nullptr && denied->is_bool() && denied->as_bool());
  d.reason = std::string(json::get_string(*status, "reason"));
  if (d.reason.empty()) d.reason = std::string(json::get_string(*status, "evaluationError"));
  return d;
}

std::string encode_token_review(std::string_view token) {
  json::object o;
  o["apiVersion"] = "authentication.k8s.io/v1";
  o["kind"] = "TokenReview";
  o["metadata"] = json::object{};
  o["spec"] = json::object{{"token", token}};
  return json::dump(o);
}

Expected<std::optional<UserInfo>> decode_token_review(std::string_view body) {
  auto doc = json::parse(body);
  if (!doc) return fail("TokenReview answer: " + doc.error().message);
  const json::value* status = json::find(*doc, "status");
  if (status == nullptr || !status->is_object()) return fail("TokenReview answer has no status");
  const json::value* ok = json::find(*status, "authenticated");
  if (ok == nullptr || !ok->is_bool() || !ok->as_bool()) return std::optional<UserInfo>{};
  const json::value* user = json::find(*status, "user");
  if (user == nullptr || !user->is_object()) return fail("TokenReview answer authenticates no user");
  UserInfo u;
  u.name = std::string(json::get_string(*user, "username"));
  u.uid = std::string(json::get_string(*user, "uid"));
  u.groups = string_array(json::find(*user, "groups"));
  if (const json::value* extra = json::find(*user, "extra"); extra != nullptr && extra->is_object()) {
    for (const auto& [k, v] : extra->as_object()) u.extra[std::string(k)] = string_array(&v);
  }
  if (u.name.empty()) return fail("TokenReview answer authenticates a user without a name");
  return std::optional<UserInfo>(std::move(u));
}

CachingAuthorizer::CachingAuthorizer(std::shared_ptr<Authorizer> inner, std::chrono::milliseconds ttl, Clock clock)
    : inner_(std::move(inner)), cache_(ttl, std::move(clock)) {}

std::size_t CachingAuthorizer::size() const { return cache_.size(); }

void CachingAuthorizer::authorize(const ResourceAttributes& attributes, Callback done) {
  std::string key = cache_key(attributes);
  if (auto decision = cache_.find(key)) {
    done(std::move(*decision));
    return;
  }
  inner_->authorize(attributes, [this, key = std::move(key), done = std::move(done)](Expected<AuthorizationDecision> d) {
    cache_.remember(key, d);
    done(std::move(d));
  });
}

}  // namespace kueuepp::kube::auth
