#include "kube/webhook/crd_conversion_registration.hpp"

#include <array>
#include <string>

#include "core/base64.hpp"
#include "kube/conversion/conversion_review.hpp"

namespace kueuepp::kube::webhook {

namespace resources {
const client::ResourceDescriptor kCustomResourceDefinition{"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                                           "CustomResourceDefinition", false};
}  // namespace resources

std::span<const std::string_view> converted_crd_names() {
  static constexpr std::array<std::string_view, 7> kNames{
      "resourceflavors.kueue.x-k8s.io", "clusterqueues.kueue.x-k8s.io",          "localqueues.kueue.x-k8s.io",
      "cohorts.kueue.x-k8s.io",         "workloadpriorityclasses.kueue.x-k8s.io", "admissionchecks.kueue.x-k8s.io",
      "workloads.kueue.x-k8s.io"};
  return kNames;
}

std::optional<json::value> crd_conversion_patch(const json::value& live, const WebhookTarget& target) {
  const auto* conversion = json::find_path(live, {"spec", "conversion"});
  if (conversion == nullptr || json::get_string(*conversion, "strategy") != "Webhook") return std::nullopt;
  const auto* client_config = json::find_path(*conversion, {"webhook", "clientConfig"});
  const std::string ca_bundle = target.ca_bundle_pem.empty() ? std::string() : core::base64_encode(target.ca_bundle_pem);

  json::object desired;
  if (!target.url_base.empty()) {
    const std::string url = target.url_base + std::string(conversion::kConversionWebhookPath);
    const bool current = client_config != nullptr && json::get_string(*client_config, "url") == url &&
                         json::find(*client_config, "service") == nullptr &&
                         json::get_string(*client_config, "caBundle") == ca_bundle;
    if (current) return std::nullopt;
    desired["url"] = json::string(url);
    desired["service"] = nullptr;  // a merge patch removes it: url and service exclude each other
  } else {
    const auto* service = client_config != nullptr ? json::find(*client_config, "service") : nullptr;
    if (service == nullptr || json::get_string(*service, "name") != target.service_name ||
        json::get_string(*service, "namespace") != target.service_namespace) {
      return std::nullopt;  // pointed elsewhere on purpose: not ours to change
    }
    if (json::get_string(*client_config, "caBundle") == ca_bundle) return std::nullopt;
  }
  if (ca_bundle.empty()) desired["caBundle"] = nullptr;
  else desired["caBundle"] = json::string(ca_bundle);
  return json::value(json::object{
      {"spec", json::object{{"conversion", json::object{{"webhook", json::object{{"clientConfig", std::move(desired)}}}}}}}});
}

}  // namespace kueuepp::kube::webhook
