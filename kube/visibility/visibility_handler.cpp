#include "kube/visibility/visibility_handler.hpp"

#include <spdlog/spdlog.h>

#include "kube/tls/client_certificate.hpp"

namespace kueuepp::kube::visibility {

namespace {

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

std::string_view query_of(std::string_view target) {
  auto q = target.find('?');
  return q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
}

/// The identity of the front proxy's user, if the request came through a trusted proxy.
std::optional<auth::UserInfo> front_proxy_user(const IncomingRequest& request, const auth::RequestHeaderConfig* config) {
  if (request.peer_chain_der.empty() || config == nullptr) return std::nullopt;
  auto subject = tls::verify_client_certificate(request.peer_chain_der, config->client_ca_pem,
                                               "the front-proxy CA (requestheader-client-ca-file)");
  if (!subject) {
    spdlog::debug("visibility: client certificate refused: {}", subject.error().message);
    return std::nullopt;
  }
  if (!auth::proxy_name_allowed(*config, subject->common_name)) {
    spdlog::debug("visibility: front proxy {} is not in requestheader-allowed-names", subject->common_name);
    return std::nullopt;
  }
  return auth::user_from_request_headers(request.headers, *config);
}

}  // namespace

VisibilityHandler::VisibilityHandler(std::shared_ptr<PendingWorkloadsSource> source,
                                     std::shared_ptr<auth::Authorizer> authorizer,
                                     std::shared_ptr<auth::TokenAuthenticator> tokens,
                                     std::size_t max_what_ifs_in_flight)
    : source_(std::move(source)),
      authorizer_(std::move(authorizer)),
      tokens_(std::move(tokens)),
      max_what_ifs_in_flight_(max_what_ifs_in_flight) {}

void VisibilityHandler::set_request_header_config(std::optional<auth::RequestHeaderConfig> config) {
  std::lock_guard lock(mutex_);
  request_header_ = config ? std::make_shared<const auth::RequestHeaderConfig>(std::move(*config)) : nullptr;
}

void VisibilityHandler::handle(IncomingRequest request, Reply reply) {
  const Route route = route_of(path_of(request.target));
  switch (route.kind) {
    case RouteKind::Health: reply(Answer{200, "ok"}); return;
    case RouteKind::GroupList: reply(Answer{200, encode_group_list()}); return;
    case RouteKind::Group: reply(Answer{200, encode_group()}); return;
    case RouteKind::ResourceList: reply(Answer{200, encode_resource_list(route.version)}); return;
    case RouteKind::Unknown: reply(Answer{404, status_path_not_found()}); return;
    case RouteKind::ClusterQueuePending:
    case RouteKind::LocalQueuePending:
    case RouteKind::LocalQueueWhatIf: break;
  }
  // A what-if question is a create; the pending lists are read.
  if (request.method != (route.kind == RouteKind::LocalQueueWhatIf ? "POST" : "GET")) {
    reply(Answer{405, status_method_not_allowed(request.method)});
    return;
  }
  Expected<core::PageBounds> page = parse_page_query(query_of(request.target));
  std::shared_ptr<const auth::RequestHeaderConfig> config;
  {
    std::lock_guard lock(mutex_);
    config = request_header_;
  }
  if (auto user = front_proxy_user(request, config.get())) {
    authorize(route, std::move(page), std::move(request.body), *user, std::move(reply));
    return;
  }
  auto token = auth::bearer_token(request.headers);
  if (!token || !tokens_) {
    reply(Answer{401, status_unauthorized()});
    return;
  }
  tokens_->authenticate(*token, [this, route, page = std::move(page), body = std::move(request.body),
                                 reply](Expected<std::optional<auth::UserInfo>> user) mutable {
    if (!user) spdlog::warn("visibility: TokenReview failed: {}", user.error().message);
    if (!user || !*user) {
      reply(Answer{401, status_unauthorized()});
      return;
    }
    authorize(route, std::move(page), std::move(body), **user, std::move(reply));
  });
}

void VisibilityHandler::authorize(const Route& route, Expected<core::PageBounds> page, std::string body,
                                  const auth::UserInfo& user, Reply reply) {
  auth::ResourceAttributes a;
  a.user = user;
  // A what-if question reveals what the LocalQueue's pending list does (positions,
  // reasons) and writes nothing: whoever may read that list may ask it, by the roles
  // Kueue ships for the visibility API.
  a.verb = "get";
  a.group = std::string(kGroup);
  a.version = route.version;
  a.resource = route.kind == RouteKind::ClusterQueuePending ? "clusterqueues" : "localqueues";
  a.subresource = "pendingworkloads";
  a.name = route.name;
  a.ns = route.ns;
  authorizer_->authorize(a, [this, a, route, page = std::move(page), body = std::move(body),
                             reply](Expected<auth::AuthorizationDecision> d) mutable {
    if (!d) {
      spdlog::warn("visibility: SubjectAccessReview failed: {}", d.error().message);
      reply(Answer{500, status_internal("authorization failed: " + d.error().message)});
      return;
    }
    if (!d->allowed) {
      reply(Answer{403, status_forbidden(a.user.name, a.verb, a.resource, a.subresource, a.name, a.ns, d->reason)});
      return;
    }
    if (route.kind == RouteKind::LocalQueueWhatIf) {
      serve_what_if(route, std::move(body), std::move(reply));
      return;
    }
    // As the API server: the options are decoded once the request is authorized.
    if (!page) {
      reply(Answer{400, status_bad_request(page.error().message)});
      return;
    }
    serve(route, *page, std::move(reply));
  });
}

void VisibilityHandler::serve(const Route& route, core::PageBounds page, Reply reply) {
  PendingWorkloadsQuery q;
  q.page = page;
  if (route.kind == RouteKind::ClusterQueuePending) {
    q.cluster_queue = route.name;
  } else {
    q.ns = route.ns;
    q.local_queue = route.name;
  }
  const bool cluster = route.kind == RouteKind::ClusterQueuePending;
  source_->pending_workloads(std::move(q), [route, cluster, reply](Expected<PendingWorkloadsResult> r) {
    if (!r) {
      reply(Answer{503, status_unavailable(r.error().message)});
      return;
    }
    if (!r->found) {
      reply(Answer{404, status_not_found(cluster ? "clusterqueue" : "localqueue", route.name)});
      return;
    }
    reply(Answer{200, encode_summary(route.version, r->items)});
  });
}

void VisibilityHandler::serve_what_if(const Route& route, std::string body, Reply reply) {
  if (what_ifs_in_flight_.fetch_add(1) >= max_what_ifs_in_flight_) {
    what_ifs_in_flight_.fetch_sub(1);
    Answer busy{429,
                status_too_many_requests(
                    "too many what-if questions in flight on this replica (at most " +
                        std::to_string(max_what_ifs_in_flight_) +
                        "): each is answered on a copy of its queue's cohort tree while that tree's admissions wait; "
                        "ask again after the Retry-After",
                    1)};
    busy.retry_after_seconds = 1;
    reply(std::move(busy));
    return;
  }
  WhatIfQuery q;
  q.version = route.version;
  q.ns = route.ns;
  q.local_queue = route.name;
  q.body = std::move(body);
  source_->what_if(std::move(q), [this, route, reply](Expected<WhatIfResult> r) {
    what_ifs_in_flight_.fetch_sub(1);
    if (!r) {
      reply(Answer{503, status_unavailable(r.error().message)});
      return;
    }
    switch (r->kind) {
      case WhatIfResult::Kind::LocalQueueNotFound:
        reply(Answer{404, status_not_found("localqueue", route.name)});
        return;
      case WhatIfResult::Kind::Invalid:
        reply(Answer{400, status_bad_request(r->message)});
        return;
      case WhatIfResult::Kind::Answered:
        // Created, as a review is: the answer exists only in this response.
        reply(Answer{201, encode_what_if_result(route.version, *r)});
        return;
    }
  });
}

}  // namespace kueuepp::kube::visibility
