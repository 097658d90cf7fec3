#pragma once

// The API server's request router: authentication, the non-resource endpoints
// (/version, /healthz, /livez, /readyz, discovery, /openapi) and dispatch of resource
// requests to the verb handlers. Beast-free; the network layer hands it parsed requests.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/apiserver/server/api/aggregated_apis.hpp"
#include "kube/apiserver/server/api/in_flight_limit.hpp"
#include "kube/apiserver/server/api/request_info.hpp"
#include "kube/apiserver/server/auth/certificate_authenticator.hpp"
#include "kube/apiserver/server/auth/token_authenticator.hpp"
#include "kube/apiserver/server/api/request_record.hpp"
#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/http/http_types.hpp"

namespace kueuepp::kube::server {

struct ApiHandlerOptions {
  /// When set, requests must carry a bearer token it knows (health and version endpoints
  /// excepted, as for kube-apiserver's public-info-viewer role), and requests of users
  /// outside system:masters are authorized by RBAC. Null: no authentication, every
  /// request is the server's own (system:masters).
  std::shared_ptr<const auth::TokenAuthenticator> authenticator;
  /// With authentication on: TLS clients whose certificate verifies against the client CA
  /// are the user it names, tried before the bearer token as kube-apiserver tries them.
  std::shared_ptr<const auth::CertificateAuthenticator> certificates;
  /// Issues tokens for the serviceaccounts/token subresource (null: it answers 404).
  std::shared_ptr<const auth::ServiceAccountTokens> service_account_tokens;
  /// host:port reported in serverAddressByClientCIDRs.
  std::string server_address;
  /// Told about every resource request once it is answered (ApiServerOptions).
  RequestObserver request_observer;
  /// Requests in flight at once before 429 (in_flight_limit.hpp); 0: no limit.
  std::size_t max_requests_inflight = 0;
  std::size_t max_mutating_requests_inflight = 0;
};

class ApiHandler {
 public:
  ApiHandler(ServerContext& ctx, ApiHandlerOptions options);
  /// Handles one request on the store thread. `request` must stay valid until the
  /// responder has answered (or started a stream).
  void handle(const HttpRequest& request, ResponderPtr responder);
  /// Health reporting: false once the server is shutting down (readyz fails).
  void set_ready(bool ready) { ready_ = ready; }
  /// host:port for serverAddressByClientCIDRs (known once the listener is bound).
  void set_server_address(std::string address) { options_.server_address = std::move(address); }

 private:
  void handle_non_resource(const HttpRequest& request, const std::string& path, const ResponderPtr& responder);
  /// The aggregated APIs' group-versions for discovery (none without an aggregator).
  std::vector<RemoteGroupVersion> remote_group_versions() const;
  /// True when every resource of the group version comes from a CRD.
  bool serves_only_custom_resources(std::string_view group, std::string_view version) const;
  void handle_resource(const HttpRequest& request, RequestInfo info, Query query, const auth::UserInfo& user,
                       const ResponderPtr& responder);
  /// The user of a request (401 answered and nullopt when it has none).
  std::optional<auth::UserInfo> authenticate(const HttpRequest& request, Responder& responder) const;

  ServerContext& ctx_;
  ApiHandlerOptions options_;
  InFlightLimiter in_flight_;
  bool ready_ = true;
};

}  // namespace kueuepp::kube::server
