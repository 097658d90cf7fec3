#pragma once

// Where the server reaches a Service it calls itself (admission webhooks, aggregated
// APIs): there are no Pods or endpoints behind Services here, so a Service named by
// reference is reached at one configured host (ApiServerOptions::webhook_service_host)
// and the targetPort the Service gives for the port named. Store thread only.

#include <string>
#include <string_view>

#include "kube/apiserver/server/store/object_store.hpp"

namespace kueuepp::kube::server {

struct ServiceEndpoint {
  enum class Outcome {
    Found,            ///< the Service lists the port: host and its targetPort
    PortNotListed,    ///< the Service exists but lists no such port: host and the port itself
    ServiceNotFound,  ///< no such Service
  };
  Outcome outcome = Outcome::ServiceNotFound;
  std::string host;
  int port = 0;
  std::string port_name;  ///< the Service port's name, when found
};

/// Resolves `port` of Service `ns`/`name` (stored in `services`) to `host` and the
/// Service's targetPort for it (the port itself when the targetPort is absent or named).
ServiceEndpoint resolve_service(const ObjectStore& store, BucketId services, std::string_view ns, std::string_view name,
                                int port, std::string_view host);

}  // namespace kueuepp::kube::server
