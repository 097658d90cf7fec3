#include "kube/apiserver/server/api/authorization.hpp"

#include <fmt/format.h>

#include "kube/apiserver/server/api/request_record.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kAuthorizationGroup = "authorization.k8s.io";
constexpr std::string_view kAuthenticationGroup = "authentication.k8s.io";

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

std::string field_text(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* field_object(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

json::array strings(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

// kube-apiserver's checks of a SubjectAccessReviewSpec's attributes (and of its user
// and groups, for a SubjectAccessReview), in its order.
FieldErrors spec_errors(const json::object& spec, bool needs_subject) {
  FieldErrors errors;
  bool resource = field_object(spec, "resourceAttributes") != nullptr;
  bool non_resource = field_object(spec, "nonResourceAttributes") != nullptr;
  if (resource && non_resource) {
    errors.push_back(invalid_error("spec.nonResourceAttributes", json::value(nullptr),
                                   "cannot be specified in combination with resourceAttributes"));
  }
  if (!resource && !non_resource) {
    errors.push_back(invalid_error("spec.resourceAttributes", json::value(nullptr),
                                   "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
  const json::value* groups = spec.if_contains("groups");
  bool has_groups = groups != nullptr && groups->is_array() && !groups->get_array().empty();
  if (needs_subject && field_text(spec, "user").empty() && !has_groups) {
    errors.push_back(invalid_error("spec.user", json::value(""), "at least one of user or group must be specified"));
  }
  return errors;
}

// Access attributes of a valid SubjectAccessReviewSpec (or a self one's) for `user`.
auth::Attributes spec_attributes(const json::object& spec, auth::UserInfo user) {
  auth::Attributes a;
  a.user = std::move(user);
  if (const json::object* resource = field_object(spec, "resourceAttributes"); resource != nullptr) {
    a.resource_request = true;
    a.verb = field_text(*resource, "verb");
    a.group = field_text(*resource, "group");
    a.version = field_text(*resource, "version");
    a.resource = field_text(*resource, "resource");
    a.subresource = field_text(*resource, "subresource");
    a.ns = field_text(*resource, "namespace");
    a.name = field_text(*resource, "name");
  } else if (const json::object* non_resource = field_object(spec, "nonResourceAttributes"); non_resource != nullptr) {
    a.resource_request = false;
    a.verb = field_text(*non_resource, "verb");
    a.path = field_text(*non_resource, "path");
  }
  return a;
}

// The review as kube-apiserver answers it: what was sent, its status filled in.
json::value answer(json::object review, std::string_view group, std::string_view kind, json::object status) {
  review["apiVersion"] = std::string(group) + "/v1";
  review["kind"] = kind;
  json::object* metadata = review.contains("metadata") && review["metadata"].is_object() ? &review["metadata"].get_object() : nullptr;
  if (metadata == nullptr) metadata = &review.emplace("metadata", json::object{}).first->value().get_object();
  if (!metadata->contains("creationTimestamp")) (*metadata)["creationTimestamp"] = nullptr;
  review["status"] = std::move(status);
  return review;
}

json::object access_status(const auth::Decision& d) {
  json::object status{{"allowed", d.allowed}};
  if (!d.reason.empty()) status["reason"] = d.reason;
  return status;
}

ApiResult<json::value> subject_access_review(json::object review, const auth::RbacObjects& rbac) {
  const json::object* spec = field_object(review, "spec");
  if (spec == nullptr) spec = &review.emplace("spec", json::object{}).first->value().get_object();
  if (FieldErrors errors = spec_errors(*spec, true); !errors.empty()) {
    return api_fail(invalid(kAuthorizationGroup, "SubjectAccessReview", "", errors));
  }
  auth::UserInfo subject{field_text(*spec, "user"), field_text(*spec, "uid"), {}};
  if (const json::value* groups = spec->if_contains("groups"); groups != nullptr && groups->is_array()) {
    for (const auto& g : groups->get_array()) {
      if (g.is_string()) subject.groups.emplace_back(g.get_string());
    }
  }
  auth::Decision decision = auth::authorize(spec_attributes(*spec, std::move(subject)), rbac);
  return answer(std::move(review), kAuthorizationGroup, "SubjectAccessReview", access_status(decision));
}

/// LocalSubjectAccessReview: a SubjectAccessReview confined to the request's namespace
/// (kube-apiserver's localsubjectaccessreview REST and ValidateLocalSubjectAccessReview).
ApiResult<json::value> local_subject_access_review(json::object review, std::string_view ns,
                                                   const auth::RbacObjects& rbac) {
  if (ns.empty()) return api_fail(bad_request("namespace is required on this type: "));
  json::object* metadata = review.contains("metadata") && review["metadata"].is_object() ? &review["metadata"].get_object() : nullptr;
  if (metadata == nullptr) metadata = &review.emplace("metadata", json::object{}).first->value().get_object();
  const std::string object_ns = field_text(*metadata, "namespace");
  if (!object_ns.empty() && object_ns != ns) {
    return api_fail(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
  }
  (*metadata)["namespace"] = ns;
  FieldErrors errors;
  for (const auto& [key, value] : *metadata) {
    if (key != "namespace" && key != "managedFields" && !(key == "creationTimestamp" && value.is_null())) {
      errors.push_back(invalid_error("metadata", json::value(*metadata), "must be empty except for namespace"));
      break;
    }
  }
  // (Adding spec may move metadata: it is not used past this point.)
  const json::object* spec = field_object(review, "spec");
  if (spec == nullptr) spec = &review.emplace("spec", json::object{}).first->value().get_object();
  FieldErrors spec_problems = spec_errors(*spec, true);
  errors.insert(errors.begin(), spec_problems.begin(), spec_problems.end());
  if (const json::object* resource = field_object(*spec, "resourceAttributes");
      resource != nullptr && field_text(*resource, "namespace") != ns) {
    errors.push_back(invalid_error("spec.resourceAttributes.namespace", json::value(field_text(*resource, "namespace")),
                                   "must match metadata.namespace"));
  }
  if (const json::object* non_resource = field_object(*spec, "nonResourceAttributes"); non_resource != nullptr) {
    errors.push_back(invalid_error("spec.nonResourceAttributes", json::value(*non_resource),
                                   "disallowed on this kind of request"));
  }
  if (!errors.empty()) return api_fail(invalid(kAuthorizationGroup, "LocalSubjectAccessReview", "", errors));
  auth::UserInfo subject{field_text(*spec, "user"), field_text(*spec, "uid"), {}};
  if (const json::value* groups = spec->if_contains("groups"); groups != nullptr && groups->is_array()) {
    for (const auto& g : groups->get_array()) {
      if (g.is_string()) subject.groups.emplace_back(g.get_string());
    }
  }
  auth::Decision decision = auth::authorize(spec_attributes(*spec, std::move(subject)), rbac);
  return answer(std::move(review), kAuthorizationGroup, "LocalSubjectAccessReview", access_status(decision));
}

ApiResult<json::value> self_subject_access_review(json::object review, const auth::UserInfo& requester,
                                                  const auth::RbacObjects& rbac) {
  const json::object* spec = field_object(review, "spec");
  if (spec == nullptr) spec = &review.emplace("spec", json::object{}).first->value().get_object();
  if (FieldErrors errors = spec_errors(*spec, false); !errors.empty()) {
    return api_fail(invalid(kAuthorizationGroup, "SelfSubjectAccessReview", "", errors));
  }
  auth::Decision decision = auth::authorize(spec_attributes(*spec, requester), rbac);
  return answer(std::move(review), kAuthorizationGroup, "SelfSubjectAccessReview", access_status(decision));
}

// The lists of a PolicyRule that a rules review reports, when present and not empty.
void copy_lists(const json::value& rule, json::object& into, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    const json::value* list = rule.is_object() ? rule.get_object().if_contains(key) : nullptr;
    if (list != nullptr && list->is_array() && !list->get_array().empty()) into[key] = *list;
  }
}

bool has_list(const json::value& rule, std::string_view key) {
  const json::value* list = rule.is_object() ? rule.get_object().if_contains(key) : nullptr;
  return list != nullptr && list->is_array() && !list->get_array().empty();
}

// What `kubectl auth can-i --list` asks: every rule the requester holds in a namespace.
// kube-apiserver answers a fresh object (the spec is not echoed).
ApiResult<json::value> self_subject_rules_review(const json::object& review, const auth::UserInfo& requester,
                                                 const auth::RbacObjects& rbac) {
  const json::object* spec = field_object(review, "spec");
  std::string ns = spec != nullptr ? field_text(*spec, "namespace") : std::string();
  if (ns.empty()) return api_fail(bad_request("no namespace on request"));
  json::array resource_rules, non_resource_rules;
  if (requester.is_master()) {
    resource_rules.push_back(json::object{{"verbs", json::array{"*"}}, {"apiGroups", json::array{"*"}}, {"resources", json::array{"*"}}});
    non_resource_rules.push_back(json::object{{"verbs", json::array{"*"}}, {"nonResourceURLs", json::array{"*"}}});
  }
  std::string errors;
  for (const json::value& rule : auth::rules_for(requester, ns, rbac, errors)) {
    if (has_list(rule, "resources")) {
      json::object r;
      copy_lists(rule, r, {"verbs", "apiGroups", "resources", "resourceNames"});
      if (!r.contains("verbs")) r["verbs"] = json::array{};
      resource_rules.push_back(std::move(r));
    }
    if (has_list(rule, "nonResourceURLs")) {
      json::object r;
      copy_lists(rule, r, {"verbs", "nonResourceURLs"});
      if (!r.contains("verbs")) r["verbs"] = json::array{};
      non_resource_rules.push_back(std::move(r));
    }
  }
  json::object status{{"resourceRules", std::move(resource_rules)},
                      {"nonResourceRules", std::move(non_resource_rules)},
                      {"incomplete", false}};
  if (!errors.empty()) status["evaluationError"] = errors;
  return json::value(json::object{{"kind", "SelfSubjectRulesReview"},
                                  {"apiVersion", "authorization.k8s.io/v1"},
                                  {"metadata", json::object{{"creationTimestamp", nullptr}}},
                                  {"spec", json::object{}},
                                  {"status", std::move(status)}});
}

/// user.Info as the authentication reviews write it.
json::object user_info_of(const auth::UserInfo& user) {
  json::object info{{"username", user.name}};
  if (!user.uid.empty()) info["uid"] = user.uid;
  info["groups"] = strings(user.groups);
  return info;
}

ApiResult<json::value> token_review(json::object review, const auth::TokenAuthenticator* tokens) {
  const json::object* spec = field_object(review, "spec");
  std::string token = spec != nullptr ? field_text(*spec, "token") : std::string();
  if (token.empty()) return api_fail(bad_request("token is required for TokenReview in authentication"));
  std::vector<std::string> audiences;
  if (const json::value* wanted = spec->if_contains("audiences"); wanted != nullptr && wanted->is_array()) {
    for (const auto& a : wanted->get_array()) {
      if (a.is_string()) audiences.emplace_back(a.get_string());
    }
  }
  auth::TokenCheck check = tokens != nullptr ? tokens->check_token(token, audiences) : auth::TokenCheck{};
  bool authenticated = check.outcome == auth::TokenCheck::Outcome::Authenticated;
  json::object status;
  if (authenticated) status["authenticated"] = true;
  status["user"] = authenticated ? user_info_of(check.user) : json::object{};
  if (authenticated && !check.audiences.empty()) status["audiences"] = strings(check.audiences);
  if (check.outcome == auth::TokenCheck::Outcome::Rejected) status["error"] = "[invalid bearer token, " + check.reason + "]";
  return answer(std::move(review), kAuthenticationGroup, "TokenReview", std::move(status));
}

/// SelfSubjectReview (`kubectl auth whoami`): who the server takes the requester for.
json::value self_subject_review(json::object review, const auth::UserInfo& requester) {
  return answer(std::move(review), kAuthenticationGroup, "SelfSubjectReview",
                json::object{{"userInfo", user_info_of(requester)}});
}

}  // namespace

StoreRbacObjects::StoreRbacObjects(ServerContext& ctx)
    : store_(ctx.store),
      roles_(ctx.store.bucket("rbac.authorization.k8s.io/roles")),
      role_bindings_(ctx.store.bucket("rbac.authorization.k8s.io/rolebindings")),
      cluster_roles_(ctx.store.bucket("rbac.authorization.k8s.io/clusterroles")),
      cluster_role_bindings_(ctx.store.bucket("rbac.authorization.k8s.io/clusterrolebindings")) {}

void StoreRbacObjects::cluster_role_bindings(const Visit& visit) const {
  store_.scan(cluster_role_bindings_, "", "", 0, [&](const ObjectPtr& o) {
    visit(o->doc);
    return true;
  });
}

void StoreRbacObjects::role_bindings(std::string_view ns, const Visit& visit) const {
  store_.scan(role_bindings_, std::string(ns) + "/", "", 0, [&](const ObjectPtr& o) {
    visit(o->doc);
    return true;
  });
}

const json::value* StoreRbacObjects::cluster_role(std::string_view name) const {
  ObjectPtr o = store_.get(cluster_roles_, name);
  return o ? &o->doc : nullptr;
}

const json::value* StoreRbacObjects::role(std::string_view ns, std::string_view name) const {
  ObjectPtr o = store_.get(roles_, std::string(ns) + "/" + std::string(name));
  return o ? &o->doc : nullptr;
}

auth::UserInfo server_master() {
  return auth::UserInfo{"kueuepp", "", {std::string(auth::kMastersGroup), std::string(auth::kAuthenticatedGroup)}};
}

auth::Attributes request_attributes(const auth::UserInfo& user, const HttpRequest& request, const RequestInfo& info,
                                    const Query& query) {
  auth::Attributes a;
  a.user = user;
  a.path = info.path;
  if (!info.is_resource) {
    a.resource_request = false;
    a.verb = lowercase(request.method);
    return a;
  }
  ApiRequestRecord r = request_record(request, info, query);
  a.verb = r.verb;
  a.group = r.group;
  a.version = r.version;
  a.resource = r.resource;
  a.subresource = r.subresource;
  a.ns = r.ns;
  a.name = r.name;
  return a;
}

ApiResult<auth::UserInfo> impersonated_user(const auth::UserInfo& user, const HttpRequest& request,
                                            const auth::RbacObjects& rbac) {
  std::string name(request.header("impersonate-user"));
  std::string uid(request.header("impersonate-uid"));
  std::vector<std::string_view> groups = http::find_headers(request.headers, "impersonate-group");
  if (name.empty()) {
    if (groups.empty() && uid.empty()) return user;
    return api_fail(internal_error("requested impersonation of groups or a uid without impersonating a user"));
  }
  // Each thing impersonated is authorized as the verb impersonate on it.
  auto may = [&](std::string resource, std::string ns, std::string target) -> ApiStatus {
    auth::Attributes a;
    a.user = user;
    a.verb = "impersonate";
    a.resource = std::move(resource);
    a.ns = std::move(ns);
    a.name = std::move(target);
    auth::Decision d = auth::authorize(a, rbac);
    if (!d.allowed) return api_fail(forbidden_request(a, d.reason));
    return {};
  };
  auth::UserInfo acting{name, uid, {}};
  constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
  std::string_view sa = std::string_view(name).substr(0, kServiceAccountPrefix.size()) == kServiceAccountPrefix
                            ? std::string_view(name).substr(kServiceAccountPrefix.size())
                            : std::string_view();
  std::size_t colon = sa.find(':');
  if (!sa.empty() && colon != std::string_view::npos && colon > 0 && colon + 1 < sa.size()) {
    std::string ns(sa.substr(0, colon));
    if (ApiStatus st = may("serviceaccounts", ns, std::string(sa.substr(colon + 1))); !st) return api_fail(st.error());
    // A ServiceAccount's groups are known (kube-apiserver adds them when none are asked for).
    if (groups.empty()) acting.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns};
  } else if (ApiStatus st = may("users", "", name); !st) {
    return api_fail(st.error());
  }
  for (std::string_view g : groups) {
    if (ApiStatus st = may("groups", "", std::string(g)); !st) return api_fail(st.error());
    acting.groups.emplace_back(g);
  }
  if (!uid.empty()) {
    if (ApiStatus st = may("uids", "", uid); !st) return api_fail(st.error());
  }
  if (name != "system:anonymous" && !acting.in_group(auth::kAuthenticatedGroup)) {
    acting.groups.emplace_back(auth::kAuthenticatedGroup);
  }
  return acting;
}

ApiError forbidden_request(const auth::Attributes& attributes, const std::string& reason) {
  ApiError e = forbidden(ErrorSubject{attributes.group, attributes.resource, attributes.name}, "");
  e.message = auth::forbidden_message(attributes, reason);
  if (!attributes.resource_request) e.details = json::object{};
  return e;
}

bool is_review_resource(std::string_view group, std::string_view resource) {
  if (group == kAuthorizationGroup) {
    return resource == "subjectaccessreviews" || resource == "localsubjectaccessreviews" ||
           resource == "selfsubjectaccessreviews" || resource == "selfsubjectrulesreviews";
  }
  return group == kAuthenticationGroup && (resource == "tokenreviews" || resource == "selfsubjectreviews");
}

ApiResult<json::value> create_review(std::string_view resource, std::string_view ns, const std::string& body,
                                     const auth::UserInfo& requester, const auth::TokenAuthenticator* tokens,
                                     const auth::RbacObjects& rbac) {
  auto parsed = json::parse(body);
  if (!parsed || !parsed->is_object()) {
    return api_fail(bad_request("the request body is not a JSON object: " +
                                (parsed ? std::string("a JSON ") + (parsed->is_array() ? "array" : "value")
                                        : parsed.error().message)));
  }
  json::object review = std::move(parsed->get_object());
  if (resource == "subjectaccessreviews") return subject_access_review(std::move(review), rbac);
  if (resource == "localsubjectaccessreviews") return local_subject_access_review(std::move(review), ns, rbac);
  if (resource == "selfsubjectaccessreviews") return self_subject_access_review(std::move(review), requester, rbac);
  if (resource == "selfsubjectrulesreviews") return self_subject_rules_review(review, requester, rbac);
  if (resource == "selfsubjectreviews") return self_subject_review(std::move(review), requester);
  return token_review(std::move(review), tokens);
}

}  // namespace kueuepp::kube::server
