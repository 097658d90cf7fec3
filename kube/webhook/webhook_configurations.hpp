#pragma once

// The MutatingWebhookConfiguration and ValidatingWebhookConfiguration
// (admissionregistration.k8s.io/v1) that send kueuepp its admission requests, built from
// the catalog: by Service (in a cluster; deploy/ ships them, tests/deploy checks they
// are these) or by URL (a controller outside the cluster registers itself), and the
// caBundle kept in step with the certificates kueuepp manages.

#include <optional>
#include <string>
#include <vector>

#include "kube/client/resource.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::webhook {

namespace resources {
extern const client::ResourceDescriptor kMutatingWebhookConfiguration;
extern const client::ResourceDescriptor kValidatingWebhookConfiguration;
extern const client::ResourceDescriptor kSecret;
}  // namespace resources

inline constexpr std::string_view kMutatingConfigurationName = "kueuepp-mutating-webhook-configuration";
inline constexpr std::string_view kValidatingConfigurationName = "kueuepp-validating-webhook-configuration";

struct WebhookTarget {
  /// "https://HOST:PORT": clientConfig.url = base + path. Empty: by Service.
  std::string url_base;
  std::string service_name = "kueuepp-webhook-service";
  std::string service_namespace = "kueuepp-system";
  /// Namespaces whose objects never reach the webhooks (kube-system and kueuepp's own).
  std::vector<std::string> excluded_namespaces = {"kube-system", "kueuepp-system"};
  /// PEM; written base64 as clientConfig.caBundle. Empty: no caBundle (cert-manager's
  /// CA injector, or kueuepp itself, fills it in).
  std::string ca_bundle_pem;
  int timeout_seconds = 10;
};

json::value mutating_configuration(const WebhookTarget& target);
json::value validating_configuration(const WebhookTarget& target);

/// The strategic merge patch (webhooks merge by name) that sets caBundle on the webhooks
/// of `live` that kueuepp serves and whose caBundle differs; nullopt when none does.
std::optional<json::value> ca_bundle_patch(const json::value& live, const std::string& ca_bundle_pem);

/// `desired`'s webhooks written over `live` (kept: metadata, resourceVersion); nullopt
/// when `live` already has them.
std::optional<json::value> updated_configuration(const json::value& live, const json::value& desired);

}  // namespace kueuepp::kube::webhook
