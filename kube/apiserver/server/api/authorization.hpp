#pragma once

// Who is asking and may they: authentication of a request (the server's token, static
// tokens, client certificates) and kube-apiserver's RBAC over the stored Roles and
// bindings, and the review APIs that answer the same questions (authorization.k8s.io/v1
// SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview and
// SelfSubjectRulesReview,
// authentication.k8s.io/v1 TokenReview and SelfSubjectReview).

#include <memory>
#include <optional>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/request_info.hpp"
#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/auth/rbac_authorizer.hpp"
#include "kube/apiserver/server/auth/token_authenticator.hpp"
#include "kube/apiserver/server/http/http_types.hpp"

namespace kueuepp::kube::server {

/// The RBAC objects of the store (its rbac.authorization.k8s.io buckets).
class StoreRbacObjects final : public auth::RbacObjects {
 public:
  explicit StoreRbacObjects(ServerContext& ctx);
  void cluster_role_bindings(const Visit& visit) const override;
  void role_bindings(std::string_view ns, const Visit& visit) const override;
  const json::value* cluster_role(std::string_view name) const override;
  const json::value* role(std::string_view ns, std::string_view name) const override;

 private:
  const ObjectStore& store_;
  BucketId roles_, role_bindings_, cluster_roles_, cluster_role_bindings_;
};

/// The user a server without authentication treats every request as (and that the
/// server's own token names).
auth::UserInfo server_master();

/// A request's authorization attributes, as kube-apiserver's RequestInfoFactory makes
/// them (verbs list/watch/deletecollection, fieldSelector names, non-resource paths).
auth::Attributes request_attributes(const auth::UserInfo& user, const HttpRequest& request, const RequestInfo& info,
                                    const Query& query);

/// Impersonate-User, Impersonate-Uid and Impersonate-Group as kube-apiserver's
/// impersonation filter applies them: the user the request then acts as (itself when
/// none is asked for), or the error: 403 when `user` may not `impersonate` the users,
/// serviceaccounts, uids or groups named (RBAC, system:masters may), 500 for groups or
/// a uid without a user, as kube-apiserver answers.
ApiResult<auth::UserInfo> impersonated_user(const auth::UserInfo& user, const HttpRequest& request,
                                            const auth::RbacObjects& rbac);

/// The 403 kube-apiserver answers for a refused request.
ApiError forbidden_request(const auth::Attributes& attributes, const std::string& reason);

/// Whether `type` is one of the review kinds (created, never stored).
bool is_review_resource(std::string_view group, std::string_view resource);

/// Creates a review: its answer (201 and the review with its status) or the error.
/// `ns` is the request path's namespace (LocalSubjectAccessReview's only).
ApiResult<json::value> create_review(std::string_view resource, std::string_view ns, const std::string& body,
                                     const auth::UserInfo& requester, const auth::TokenAuthenticator* tokens,
                                     const auth::RbacObjects& rbac);

}  // namespace kueuepp::kube::server
