#include "kube/apiserver/server/api/service_endpoint.hpp"

namespace kueuepp::kube::server {

ServiceEndpoint resolve_service(const ObjectStore& store, BucketId services, std::string_view ns, std::string_view name,
                                int port, std::string_view host) {
  ServiceEndpoint out;
  ObjectPtr svc = store.get(services, object_key(ns, name));
  if (!svc) return out;
  out.outcome = ServiceEndpoint::Outcome::PortNotListed;
  out.host = std::string(host);
  out.port = port;
  const json::value* spec = json::find(svc->doc, "spec");
  const json::value* ports = spec != nullptr ? json::find(*spec, "ports") : nullptr;
  if (ports == nullptr || !ports->is_array()) return out;
  for (const auto& p : ports->as_array()) {
    const json::value* number = json::find(p, "port");
    if (number == nullptr || !number->is_int64() || number->get_int64() != port) continue;
    out.outcome = ServiceEndpoint::Outcome::Found;
    out.port_name = std::string(json::get_string(p, "name"));
    const json::value* target = json::find(p, "targetPort");
    if (target != nullptr && target->is_int64()) out.port = static_cast<int>(target->get_int64());
    break;
  }
  return out;
}

}  // namespace kueuepp::kube::server
