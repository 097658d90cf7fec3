#include "kube/apiserver/server/api/service_endpoint.hpp"

#include "kube/apiserver/server/outbound/client_config.hpp"

namespace kueuepp::kube::server {

ServiceEndpoint resolve_service(const ObjectStore& store, BucketId services, std::string_view ns, std::string_view name,
                                int port, std::string_view host) {
  ServiceEndpoint out;
  ObjectPtr svc = store.get(services, object_key(ns, name));
  if (!svc) return out;
  ServicePort found = service_port(svc->doc, port);
  out.outcome = found.listed ? ServiceEndpoint::Outcome::Found : ServiceEndpoint::Outcome::PortNotListed;
  out.host = std::string(host);
  out.port = found.target;
  out.port_name = std::move(found.name);
  return out;
}

}  // namespace kueuepp::kube::server
