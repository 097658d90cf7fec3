#include "kube/apiserver/server/strategy/kueue_webhooks.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::server {
namespace {

json::object object_of(const std::string& text) {
  auto parsed = json::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.has_value() && parsed->is_object() ? parsed->as_object() : json::object{};
}

json::object cluster_queue(std::string_view resources) {
  return object_of(std::string(R"({"spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"f","resources":)") +
                   std::string(resources) + "}]}]}}");
}

TEST(KueueWebhooks, AcceptsNonNegativeQuotas) {
  EXPECT_TRUE(kueue_webhook_errors("ClusterQueue", cluster_queue(R"([{"name":"cpu","nominalQuota":"2","lendingLimit":1}])")).empty());
  EXPECT_TRUE(kueue_webhook_errors("ClusterQueue", cluster_queue(R"([{"name":"cpu","nominalQuota":0}])")).empty());
}

TEST(KueueWebhooks, RefusesNegativeNominalQuotaWithKueuesWording) {
  auto errors = kueue_webhook_errors("ClusterQueue", cluster_queue(R"([{"name":"cpu","nominalQuota":-1}])"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(to_string(errors[0]),
            "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: \"-1\": must be greater "
            "than or equal to 0");
}

TEST(KueueWebhooks, RefusesNegativeLimitsAndLendingAboveNominal) {
  auto errors = kueue_webhook_errors(
      "Cohort", cluster_queue(R"([{"name":"cpu","nominalQuota":"1","borrowingLimit":"-500m","lendingLimit":"2"}])"));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].field, "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit");
  EXPECT_EQ(errors[1].field, "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit");
  EXPECT_NE(errors[1].message.find("less than or equal to the nominalQuota"), std::string::npos);
}

TEST(KueueWebhooks, LeavesMalformedInputToTheSchemaAndOtherKindsAlone) {
  EXPECT_TRUE(kueue_webhook_errors("ClusterQueue", cluster_queue(R"([{"name":"cpu","nominalQuota":"1x"}])")).empty());
  EXPECT_TRUE(kueue_webhook_errors("ClusterQueue", object_of(R"({"spec":{"resourceGroups":"nope"}})")).empty());
  EXPECT_TRUE(kueue_webhook_errors("LocalQueue", cluster_queue(R"([{"name":"cpu","nominalQuota":-1}])")).empty());
}

}  // namespace
}  // namespace kueuepp::kube::server
