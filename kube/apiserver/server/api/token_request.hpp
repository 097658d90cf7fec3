#pragma once

// The TokenRequest subresource (POST /api/v1/namespaces/NS/serviceaccounts/NAME/token,
// authentication.k8s.io/v1 TokenRequest), as kube-apiserver answers it and as
// `kubectl create token` sends it: a new ServiceAccount token for the request's
// audiences (default: the API audiences) and lifetime (default one hour, at least ten
// minutes), bound to a Pod or a Secret when boundObjectRef names one. Nothing is stored.

#include <optional>
#include <string>
#include <string_view>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/auth/service_account_tokens.hpp"

namespace kueuepp::kube::server {

/// The TokenRequest answered (201) for ServiceAccount `ns`/`name`, or kube-apiserver's
/// error: 404 for a ServiceAccount (or bound object) that does not exist, 422 for a
/// lifetime out of range, 400 for a body that is not a TokenRequest.
ApiResult<json::value> create_token_request(ServerContext& ctx, const auth::ServiceAccountTokens& tokens,
                                            std::string_view ns, std::string_view name, std::string_view body);

/// The uid of the live ServiceAccount, Pod or Secret `ns`/`name` (none when it does not
/// exist or is being deleted): what a token's claims are checked against.
std::optional<std::string> live_object_uid(ServerContext& ctx, std::string_view kind, std::string_view ns,
                                           std::string_view name);

}  // namespace kueuepp::kube::server
