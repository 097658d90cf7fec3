#pragma once

// A webhook's clientConfig (admissionregistration.k8s.io and apiextensions.k8s.io share
// its shape: url, or a Service reference with path and port, and caBundle), and where
// kube-apiserver would send a call to it: the URL split for the transport, or the
// Service's address resolved. Admission and CRD conversion both call webhooks through it.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/outbound/webhook_transport.hpp"

namespace kueuepp::kube::server {

struct WebhookClientConfig {
  // Exactly one of url and service (the configurations were validated when stored).
  std::string url;
  std::string service_namespace;
  std::string service_name;
  std::string service_path;
  int service_port = 443;
  std::string ca_bundle_pem;  ///< caBundle decoded; empty: the system's trust store
};

/// Reads a clientConfig object (what does not read is left empty).
WebhookClientConfig read_client_config(const json::value& client_config);

/// Port `port` of a Service document: whether the Service lists it, its name, and the
/// targetPort behind it (the port itself when the targetPort is absent or named: there
/// are no Pods here to resolve a name against).
struct ServicePort {
  bool listed = false;
  std::string name;
  int target = 0;
};
ServicePort service_port(const json::value& service, int port);

/// Looks a Service up by namespace and name (the document, or nullopt when absent).
using ServiceLookup = std::function<std::optional<json::value>(std::string_view ns, std::string_view name)>;

/// Where to POST: `query` (without '?', may be empty) is appended to the path. A Service
/// reference is called at `service_host` and the Service's targetPort for the port named,
/// its certificate checked for <service>.<namespace>.svc. The error says why it cannot be
/// called, in kube-apiserver's words ("Post \"...\": service \"x\" not found").
Expected<WebhookTarget> resolve_webhook_target(const WebhookClientConfig& config, std::string_view query,
                                               const ServiceLookup& services, const std::string& service_host);

/// client-go's words for a non-2xx answer (the Status's message when the body is one).
std::string unsuccessful_answer(const WebhookReply& reply);

}  // namespace kueuepp::kube::server
