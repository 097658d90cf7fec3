#include "kube/webhook/crd_conversion_registration.hpp"

#include <gtest/gtest.h>

#include "core/base64.hpp"

namespace kueuepp::kube::webhook {
namespace {

json::value crd(std::string_view conversion) {
  auto v = json::parse(std::string(R"({"metadata":{"name":"clusterqueues.kueue.x-k8s.io"},"spec":{"conversion":)") +
                       std::string(conversion) + "}}");
  EXPECT_TRUE(v.has_value());
  return v ? *v : json::value{};
}

constexpr std::string_view kByService =
    R"({"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"service":{"name":"kueuepp-webhook-service","namespace":"kueuepp-system","path":"/convert"}}}})";

TEST(CrdConversionRegistration, ByServiceSetsOnlyTheCaBundle) {
  WebhookTarget target;
  target.ca_bundle_pem = "PEM";
  auto patch = crd_conversion_patch(crd(kByService), target);
  ASSERT_TRUE(patch.has_value());
  EXPECT_EQ(json::dump(*patch), R"({"spec":{"conversion":{"webhook":{"clientConfig":{"caBundle":")" + core::base64_encode("PEM") + R"("}}}}})");
  // Already set: nothing to write.
  auto with_bundle = crd(kByService);
  with_bundle.as_object()["spec"].as_object()["conversion"].as_object()["webhook"].as_object()["clientConfig"].as_object()["caBundle"] =
      core::base64_encode("PEM");
  EXPECT_FALSE(crd_conversion_patch(with_bundle, target).has_value());
}

TEST(CrdConversionRegistration, ByUrlReplacesTheServiceReference) {
  WebhookTarget target;
  target.url_base = "https://127.0.0.1:9443";
  target.ca_bundle_pem = "PEM";
  auto patch = crd_conversion_patch(crd(kByService), target);
  ASSERT_TRUE(patch.has_value());
  const auto* client_config = json::find_path(*patch, {"spec", "conversion", "webhook", "clientConfig"});
  ASSERT_NE(client_config, nullptr);
  EXPECT_EQ(json::get_string(*client_config, "url"), "https://127.0.0.1:9443/convert");
  EXPECT_TRUE(json::find(*client_config, "service")->is_null());
  EXPECT_EQ(json::get_string(*client_config, "caBundle"), core::base64_encode("PEM"));
}

TEST(CrdConversionRegistration, OtherCrdsAreLeftAlone) {
  WebhookTarget target;
  target.ca_bundle_pem = "PEM";
  EXPECT_FALSE(crd_conversion_patch(crd(R"({"strategy":"None"})"), target).has_value());
  EXPECT_FALSE(crd_conversion_patch(crd(R"({"strategy":"Webhook","webhook":{"clientConfig":{"service":{"name":"kueue-webhook-service","namespace":"kueue-system"}}}})"), target)
                   .has_value());
  EXPECT_FALSE(crd_conversion_patch(json::parse(R"({"spec":{}})").value(), target).has_value());
  EXPECT_EQ(converted_crd_names().size(), 7u);
}

}  // namespace
}  // namespace kueuepp::kube::webhook
