#include "kube/apiserver/server/api/api_handler.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/authorization.hpp"
#include "kube/apiserver/server/api/aggregated_apis.hpp"
#include "kube/apiserver/server/api/discovery.hpp"
#include "kube/apiserver/server/api/handlers.hpp"
#include "kube/apiserver/server/api/openapi.hpp"
#include "kube/apiserver/server/api/request_info.hpp"
#include "kube/apiserver/server/api/request_user.hpp"
#include "kube/apiserver/server/api/resource_request.hpp"
#include "kube/apiserver/server/api/token_request.hpp"
#include "kube/apiserver/server/util/time.hpp"
#include "kube/apiserver/server/util/yaml_emit.hpp"

namespace kueuepp::kube::server {

namespace {

void respond_text(Responder& responder, int status, std::string body) {
  HttpResponse res;
  res.status = status;
  res.content_type = "text/plain; charset=utf-8";
  res.body = std::move(body);
  responder.respond(std::move(res));
}

void page_not_found(Responder& responder) { respond_text(responder, 404, "404 page not found\n"); }

void respond_document(Responder& responder, const json::value& doc, Representation rep) {
  HttpResponse res;
  if (rep == Representation::Yaml) {
    res.content_type = "application/yaml";
    res.body = to_yaml(doc);
  } else {
    res.content_type = content_type_of(rep);
    res.body = json::dump(doc);
  }
  responder.respond(std::move(res));
}

json::value version_document() {
  static const std::string build_date = now_rfc3339();
  return json::object{{"major", "1"},
                      {"minor", "28"},
                      {"gitVersion", "v1.28.0-kueuepp"},
                      {"gitCommit", "kueuepp"},
                      {"gitTreeState", "clean"},
                      {"buildDate", build_date},
                      {"goVersion", "none (kueuepp, C++20)"},
                      {"compiler", "gcc"},
                      {"platform", "linux/amd64"}};
}

/// A non-resource request's verb as kube-apiserver names it: its method in lower case.
std::string method_verb(std::string_view method) {
  std::string verb(method);
  for (char& c : verb) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return verb;
}

bool is_health(std::string_view path) {
  for (std::string_view h : {"/healthz", "/livez", "/readyz"}) {
    if (path == h || (path.substr(0, h.size()) == h && path.size() > h.size() && path[h.size()] == '/')) return true;
  }
  return false;
}

}  // namespace

ApiHandler::ApiHandler(ServerContext& ctx, ApiHandlerOptions options)
    : ctx_(ctx),
      options_(std::move(options)),
      in_flight_(options_.max_requests_inflight, options_.max_mutating_requests_inflight) {}

void ApiHandler::handle(const HttpRequest& request, ResponderPtr responder) {
  auto parsed = parse_target(request.target);
  if (!parsed) {
    respond_error(*responder, bad_request(fmt::format("malformed request path: {}", request.target)));
    return;
  }
  auto& [info, query] = *parsed;
  if (info.is_resource && options_.request_observer) {
    responder = observed_responder(std::move(responder), request_record(request, info, query), options_.request_observer);
  }
  bool public_path = is_health(info.path) || info.path == "/version" || info.path == "/version/";
  if (public_path) return handle_non_resource(request, info.path, responder);
  std::optional<auth::UserInfo> user = authenticate(request, *responder);
  if (!user) return;
  StoreRbacObjects rbac(ctx_);
  auto acting = impersonated_user(*user, request, rbac);
  if (!acting) return respond_error(*responder, acting.error());
  user = std::move(*acting);
  // After authentication and impersonation, before authorization, as kube-apiserver
  // orders its filters; system:masters (the controller's own token) is never limited.
  if (!user->is_master()) {
    const std::string verb = info.is_resource ? request_record(request, info, query).verb : method_verb(request.method);
    if (!is_long_running(verb, info.subresource)) {
      std::shared_ptr<void> slot = in_flight_.try_admit(is_mutating_verb(verb));
      if (!slot) return responder->respond(too_many_requests());
      responder = releasing_responder(std::move(responder), std::move(slot));
    }
  }
  if (!user->is_master()) {
    auth::Attributes attributes = request_attributes(*user, request, info, query);
    auth::Decision decision = auth::authorize(attributes, rbac);
    if (!decision.allowed) return respond_error(*responder, forbidden_request(attributes, decision.reason));
  }
  // Everything under /apis/<group>/<version> of an aggregated API goes to its server,
  // its discovery document included.
  if (ctx_.aggregated != nullptr && info.prefix == "apis" && !info.version.empty() &&
      ctx_.aggregated->proxies(info.group, info.version)) {
    return ctx_.aggregated->proxy(request, RequestUser{user->name, user->groups, {}, user->uid}, responder);
  }
  if (info.is_resource) {
    handle_resource(request, std::move(info), std::move(query), *user, responder);
  } else {
    handle_non_resource(request, info.path, responder);
  }
}

std::optional<auth::UserInfo> ApiHandler::authenticate(const HttpRequest& request, Responder& responder) const {
  if (!options_.authenticator) return server_master();
  if (options_.certificates && request.peer_certificates) {
    if (auto user = options_.certificates->authenticate(*request.peer_certificates)) return user;
  }
  auth::TokenCheck check = options_.authenticator->check_header(request.header("authorization"));
  if (check.outcome == auth::TokenCheck::Outcome::Authenticated) return std::move(check.user);
  // The client is told only 401, as kube-apiserver tells it; why is for the server's log.
  if (check.outcome == auth::TokenCheck::Outcome::Rejected) {
    spdlog::warn("ServiceAccount token refused on {} {}: {}", request.method, request.target, check.reason);
  }
  respond_error(responder, unauthorized());
  return std::nullopt;
}

void ApiHandler::handle_non_resource(const HttpRequest& request, const std::string& path,
                                     const ResponderPtr& responder) {
  if (is_health(path)) {
    if (request.method != "GET" && request.method != "HEAD") return respond_error(*responder, method_not_allowed());
    bool readyz = path.rfind("/readyz", 0) == 0;
    if (readyz && !ready_) return respond_text(*responder, 500, "[-]shutdown failed: reason withheld\nreadyz check failed\n");
    return respond_text(*responder, 200, "ok");
  }
  if (request.method != "GET") return page_not_found(*responder);
  std::string_view accept = request.header("accept");
  auto plain = [&](const json::value& doc) {
    Representation rep = negotiate_plain(accept);
    if (rep == Representation::None) return respond_error(*responder, not_acceptable());
    respond_document(*responder, doc, rep);
  };
  if (path == "/version" || path == "/version/") return plain(version_document());
  if (path == "/api" || path == "/api/" || path == "/apis" || path == "/apis/") {
    bool core = path.rfind("/api", 0) == 0 && path.rfind("/apis", 0) != 0;
    Representation rep = negotiate_discovery(accept);
    if (rep == Representation::None) return respond_error(*responder, not_acceptable());
    std::vector<RemoteGroupVersion> remote = remote_group_versions();
    if (rep == Representation::AggregatedDiscovery || rep == Representation::AggregatedDiscoveryBeta) {
      std::string_view version = rep == Representation::AggregatedDiscovery ? "apidiscovery.k8s.io/v2"
                                                                            : "apidiscovery.k8s.io/v2beta1";
      return respond_document(*responder, aggregated_discovery(ctx_.registry, core, version, remote), rep);
    }
    return respond_document(*responder, core ? core_versions(options_.server_address) : group_list(ctx_.registry, remote),
                            rep);
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") return plain(openapi_v3_index(ctx_.registry));
  if (path.rfind("/openapi/v3/", 0) == 0) {
    json::value doc = openapi_v3_document(ctx_.registry, std::string_view(path).substr(12));
    if (doc.is_null()) return page_not_found(*responder);
    return plain(doc);
  }
  if (path == "/openapi/v2" || path == "/openapi/v2/") {
    if (accept.find("protobuf") != std::string_view::npos) {
      HttpResponse res;
      res.content_type = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
      res.body = openapi_v2_protobuf();
      return responder->respond(std::move(res));
    }
    return plain(openapi_v2_document(ctx_.registry));
  }
  // /api/v1, /apis/<group>, /apis/<group>/<version> (not resource requests).
  auto parsed = parse_target(path);
  const RequestInfo& info = parsed->first;
  if (info.prefix == "apis" && !info.group.empty() && info.version.empty()) {
    json::value doc = group_document(ctx_.registry, info.group, remote_group_versions());
    if (doc.is_null()) return page_not_found(*responder);
    return plain(doc);
  }
  if (!info.prefix.empty() && !info.version.empty() && ctx_.registry.serves_group_version(info.group, info.version)) {
    return plain(resource_list(ctx_.registry, info.group, info.version));
  }
  page_not_found(*responder);
}

bool ApiHandler::serves_only_custom_resources(std::string_view group, std::string_view version) const {
  const auto types = ctx_.registry.resources(group, version);
  return !types.empty() && std::all_of(types.begin(), types.end(), [](const ResourceTypePtr& t) { return t->custom; });
}

std::vector<RemoteGroupVersion> ApiHandler::remote_group_versions() const {
  return ctx_.aggregated != nullptr ? ctx_.aggregated->remote_group_versions() : std::vector<RemoteGroupVersion>{};
}

void ApiHandler::handle_resource(const HttpRequest& request, RequestInfo info, Query query, const auth::UserInfo& user,
                                 const ResponderPtr& responder) {
  if (!ctx_.registry.serves_group_version(info.group, info.version)) return page_not_found(*responder);
  ResourceTypePtr type = ctx_.registry.find_shared(info.group, info.version, info.resource);
  // A namespaced path needs a namespaced resource; a named object of a namespaced
  // resource needs a namespace.
  if (!type || (!info.ns.empty() && !type->namespaced) ||
      (type->namespaced && info.ns.empty() && !info.name.empty())) {
    // kube-apiserver's CRD handler passes what it does not serve on to the plain
    // not-found handler; the built-in groups answer with a Status.
    if (serves_only_custom_resources(info.group, info.version)) return page_not_found(*responder);
    return respond_error(*responder, unknown_resource());
  }
  if (info.subresource == "token" && type->group.empty() && type->plural == "serviceaccounts" &&
      options_.service_account_tokens) {
    if (request.method != "POST" || info.name.empty()) return respond_error(*responder, method_not_allowed());
    auto answer = create_token_request(ctx_, *options_.service_account_tokens, info.ns, info.name, request.body);
    if (!answer) return respond_error(*responder, answer.error());
    HttpResponse res;
    res.status = 201;
    res.body = json::dump(*answer);
    return responder->respond(std::move(res));
  }
  if (!info.subresource.empty() && (info.subresource != "status" || !type->status_subresource)) {
    return respond_error(*responder, unknown_resource());
  }
  if (is_review_resource(type->group, type->plural)) {
    if (request.method != "POST" || !info.name.empty()) return respond_error(*responder, method_not_allowed());
    auto answer = create_review(type->plural, info.ns, request.body, user, options_.authenticator.get(), StoreRbacObjects(ctx_));
    if (!answer) return respond_error(*responder, answer.error());
    HttpResponse res;
    res.status = 201;
    res.body = json::dump(*answer);
    return responder->respond(std::move(res));
  }
  Representation rep = negotiate_resource(request.header("accept"));
  if (rep == Representation::None) return respond_error(*responder, not_acceptable());
  auto r = std::make_shared<ResourceRequest>(ResourceRequest{ctx_, request, std::move(info), std::move(query), type,
                                                             ctx_.bucket_of(*type), rep, responder});
  r->user = RequestUser{user.name, user.groups, {}, user.uid};
  const std::string& method = request.method;
  if (r->info.watch_path && method != "GET" && method != "HEAD") return respond_error(*responder, method_not_allowed());
  bool named = !r->info.name.empty();
  bool status = !r->info.subresource.empty();
  auto allowed = [&](std::string_view verb) { return status || type->has_verb(verb); };
  if (method == "GET" || method == "HEAD") {
    bool watch = r->info.watch_path || r->query.flag("watch");
    if (watch && !status && allowed("watch")) return handle_watch(r);
    if (named && allowed("get")) return handle_get(r);
    if (!named && allowed("list")) return handle_list(r);
  } else if (method == "POST") {
    if (!named && !status && allowed("create")) return handle_create(r);
  } else if (method == "PUT") {
    if (named && allowed("update")) return handle_update(r);
  } else if (method == "PATCH") {
    if (named && allowed("patch")) return handle_patch(r);
  } else if (method == "DELETE") {
    if (named && !status && allowed("delete")) return handle_delete(r);
    if (!named && allowed("deletecollection")) return handle_delete_collection(r);
  }
  respond_error(*responder, method_not_allowed());
}

}  // namespace kueuepp::kube::server
