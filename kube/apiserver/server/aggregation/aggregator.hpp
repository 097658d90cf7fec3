#pragma once

// API aggregation as kube-aggregator does it, for the APIServices stored in this server:
//
// - routing: requests under /apis/<group>/<version> of an APIService with a service are
//   proxied to it (aggregation/proxy_call.hpp); local APIServices are this server's own
//   groups and are served here;
// - availability: each APIService's Available condition is kept as kube-aggregator's
//   controllers keep it (Local; ServiceNotFound; ServicePortError; FailedDiscoveryCheck
//   after a GET of /apis/<group>/<version> fails; Passed), checked when the APIService or
//   its Service changes, then again every interval (sooner after a failure, backing off);
//   a request to an APIService that is not Available answers 503 "service unavailable";
// - discovery: the backend's APIResourceList, fetched after each passed check through the
//   verified transport, is what /apis and aggregated discovery list for the group-version.
//
// Store thread only.

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "kube/apiserver/server/aggregation/api_service.hpp"
#include "kube/apiserver/server/outbound/backend_transport.hpp"
#include "kube/apiserver/server/aggregation/front_proxy.hpp"
#include "kube/apiserver/server/api/aggregated_apis.hpp"
#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/api/service_endpoint.hpp"

namespace kueuepp::kube::server {

struct AggregatorOptions {
  /// Where Services are reached (ApiServerOptions::webhook_service_host).
  std::string service_host = "127.0.0.1";
  /// How long a proxied request that is not a watch may take (kube-apiserver's
  /// --request-timeout): 504 after it.
  std::chrono::milliseconds request_timeout{std::chrono::seconds(60)};
  /// How often an Available APIService is checked again (kube-aggregator's resync).
  std::chrono::milliseconds check_interval{std::chrono::seconds(30)};
  /// How long a discovery check may take (kube-aggregator's client timeout).
  std::chrono::milliseconds check_timeout{std::chrono::seconds(5)};
  BackendTimeouts timeouts;
};

class Aggregator final : public AggregatedApis {
 public:
  Aggregator(ServerContext& ctx, BackendTransport& transport, FrontProxyCredentials credentials,
             AggregatorOptions options);
  ~Aggregator() override;

  /// Told about every committed change: APIServices and Services.
  void observe(const Change& change);
  /// Reads the stored APIServices (after recovery) and checks each.
  void start();
  /// Cancels the checks to come.
  void stop();

  bool proxies(std::string_view group, std::string_view version) const override;
  void proxy(const HttpRequest& request, const RequestUser& user, ResponderPtr responder) override;
  std::vector<RemoteGroupVersion> remote_group_versions() const override;

  const FrontProxyCredentials& credentials() const { return credentials_; }

 private:
  struct Entry {
    ApiServiceSpec spec;
    bool available = false;  ///< the stored Available condition (what routing obeys)
    json::value resources;   ///< the backend's APIResourceList resources
    bool resources_current = false;
    std::uint64_t generation = 0;  ///< bumped on every spec change: older checks are dropped
    bool checking = false;
    bool check_again = false;
    int failures = 0;
    std::shared_ptr<TimerHandle> timer;
  };
  struct Fetched;

  void apply(const StoredObject& object);
  void forget(const std::string& name);
  void schedule_check(const std::string& name, std::chrono::milliseconds delay);
  void check(const std::string& name);
  void checked(const std::string& name, std::uint64_t generation, const char* status, std::string reason,
               std::string message);
  void fetch_discovery(const std::string& name, std::uint64_t generation, const BackendTarget& target);
  void set_available(const std::string& name, std::string_view status, std::string_view reason,
                     std::string_view message);
  /// One GET, its whole answer collected, bounded by `timeout`.
  void fetch(const BackendTarget& target, std::string path, const RequestUser& as, std::chrono::milliseconds timeout,
             std::function<void(Expected<Fetched>)> done);
  BackendTarget target_for(const ApiServiceSpec& spec, const ServiceEndpoint& endpoint) const;
  const Entry* entry_for(std::string_view group, std::string_view version) const;

  ServerContext& ctx_;
  BackendTransport& transport_;
  FrontProxyCredentials credentials_;
  AggregatorOptions options_;
  BucketId api_services_bucket_;
  BucketId services_bucket_;
  std::map<std::string, Entry> entries_;  ///< by APIService name
  std::uint64_t generations_ = 0;
  bool stopped_ = false;
};

}  // namespace kueuepp::kube::server
