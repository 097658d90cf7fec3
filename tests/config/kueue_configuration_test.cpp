#include "config/kueue_configuration.hpp"

#include <gtest/gtest.h>

#include "kube/json/yaml.hpp"

namespace kueuepp::config {
namespace {

Expected<KueueConfiguration> decode(std::string_view yaml) {
  auto v = json::parse_yaml(yaml);
  EXPECT_TRUE(v.has_value());
  return decode_configuration(*v);
}

TEST(KueueConfiguration, DefaultsAreKueues) {
  auto c = decode("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->ns, "kueue-system");
  EXPECT_FALSE(c->manage_jobs_without_queue_name);
  EXPECT_TRUE(c->wait_for_pods_ready.enabled);  // on by default in v1beta2
  EXPECT_EQ(c->wait_for_pods_ready.timeout, std::chrono::minutes(30));
  EXPECT_FALSE(c->engine.block_admission_until_pods_ready);
  EXPECT_EQ(c->client_qps, 300);
  EXPECT_EQ(c->client_burst, 500);
  EXPECT_FALSE(c->engine.fair_sharing);
  EXPECT_EQ(c->leader_election_id, "c1f6bfd2.kueue.x-k8s.io");
}

TEST(KueueConfiguration, ReadsTheFieldsThatChangeAdmission) {
  auto c = decode(R"(
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kq
manageJobsWithoutQueueName: true
waitForPodsReady: {timeout: 5m, blockAdmission: true, requeuingStrategy: {timestamp: Creation, backoffLimitCount: 3}}
clientConnection: {qps: 50, burst: 100}
fairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]}
resources: {excludeResourcePrefixes: [example.com/]}
featureGates: {PartialAdmission: false}
leaderElection: {leaderElect: false, leaseDuration: 30s}
)");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->ns, "kq");
  EXPECT_TRUE(c->manage_jobs_without_queue_name);
  EXPECT_EQ(c->wait_for_pods_ready.timeout, std::chrono::minutes(5));
  EXPECT_TRUE(c->engine.block_admission_until_pods_ready);
  EXPECT_FALSE(c->engine.requeue_by_eviction_timestamp);
  EXPECT_EQ(c->wait_for_pods_ready.backoff_limit_count, 3);
  EXPECT_EQ(c->client_qps, 50);
  EXPECT_TRUE(c->engine.fair_sharing);
  EXPECT_EQ(c->engine.fair_sharing_strategies.size(), 2u);
  EXPECT_EQ(c->engine.exclude_resource_prefixes, std::vector<std::string>{"example.com/"});
  EXPECT_FALSE(c->engine.partial_admission);
  EXPECT_FALSE(c->leader_elect);
  EXPECT_EQ(c->lease_duration, std::chrono::seconds(30));
}

TEST(KueueConfiguration, V1beta1SpellingsAndDefaults) {
  auto c = decode(R"(
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady: {enable: true}
fairSharing: {enable: true}
)");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_TRUE(c->wait_for_pods_ready.enabled);
  EXPECT_EQ(c->wait_for_pods_ready.timeout, std::chrono::minutes(5));
  EXPECT_TRUE(c->engine.block_admission_until_pods_ready);
  EXPECT_TRUE(c->engine.fair_sharing);
}

TEST(KueueConfiguration, InvalidConfigurationsAreRejectedWithTheField) {
  struct Case {
    const char* yaml;
    const char* want;
  } cases[] = {
      {"kind: Configuration\nbogus: 1\n", "bogus: unknown field"},
      {"kind: Configuration\nfairSharing: {}\n", "fairSharing.preemptionStrategies: Required value"},
      {"kind: Configuration\nfairSharing: {preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]}\n",
       "must be [LessThanOrEqualToFinalShare]"},
      {"kind: Configuration\nwaitForPodsReady: {timeout: 5 minutes}\n", "waitForPodsReady.timeout: invalid duration"},
      {"kind: Configuration\nwaitForPodsReady: {timeout: 0s}\n", "must be greater than 0"},
      {"kind: Configuration\nresources: {quotaCheckStrategy: IgnoreUndeclared, excludeResourcePrefixes: [a]}\n",
       "cannot be combined"},
  };
  for (const auto& c : cases) {
    auto r = decode(c.yaml);
    ASSERT_FALSE(r.has_value()) << c.yaml;
    EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
  }
}

TEST(GoDuration, ParsesLikeTimeParseDuration) {
  EXPECT_EQ(*parse_go_duration("30s"), std::chrono::seconds(30));
  EXPECT_EQ(*parse_go_duration("1h30m"), std::chrono::minutes(90));
  EXPECT_EQ(*parse_go_duration("1.5h"), std::chrono::minutes(90));
  EXPECT_EQ(*parse_go_duration("250ms"), std::chrono::milliseconds(250));
  EXPECT_EQ(*parse_go_duration("0"), std::chrono::milliseconds(0));
  EXPECT_FALSE(parse_go_duration("").has_value());
  EXPECT_FALSE(parse_go_duration("5").has_value());
  EXPECT_FALSE(parse_go_duration("5x").has_value());
}

}  // namespace
}  // namespace kueuepp::config
