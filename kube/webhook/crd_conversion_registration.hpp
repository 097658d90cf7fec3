#pragma once

// The conversion webhook of the CRDs kueuepp serves in two versions (deploy/crds: v1beta1
// converted, v1beta2 stored) kept pointing at kueuepp's webhook server with the current
// CA, as the admission webhooks' configurations are (cert_manager.cpp): in a cluster
// the caBundle is set on the Service reference deploy/ ships; outside (standalone, a
// controller run by URL) the clientConfig becomes the URL of /convert. A CRD whose
// conversion strategy is not Webhook (CRDs of another origin) is left alone.

#include <optional>
#include <span>
#include <string_view>

#include "kube/client/resource.hpp"
#include "kube/json/json.hpp"
#include "kube/webhook/webhook_configurations.hpp"

namespace kueuepp::kube::webhook {

namespace resources {
extern const client::ResourceDescriptor kCustomResourceDefinition;
}  // namespace resources

/// "clusterqueues.kueue.x-k8s.io", ...: the CRDs whose conversion kueuepp answers.
std::span<const std::string_view> converted_crd_names();

/// The JSON merge patch that sets `live`'s spec.conversion.webhook.clientConfig (by the
/// target's URL, or the caBundle on the Service it names); nullopt when nothing changes
/// or the CRD's conversion is not by Webhook.
std::optional<json::value> crd_conversion_patch(const json::value& live, const WebhookTarget& target);

}  // namespace kueuepp::kube::webhook
