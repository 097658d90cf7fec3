#include "config/kueue_configuration.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "kube/json/yaml.hpp"

namespace kueuepp::config {
namespace {

Expected<KueueConfiguration> decode(std::string_view yaml, bool allow_unsupported = false) {
  auto v = json::parse_yaml(yaml);
  EXPECT_TRUE(v.has_value());
  return decode_configuration(*v, ConfigurationDecodeOptions{allow_unsupported});
}

// Kueue's own controller_manager_config.yaml as Kueue ships it (config/components/manager).
constexpr std::string_view kKueueShippedConfiguration = R"(
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
health:
  healthProbeBindAddress: :8081
metrics:
  bindAddress: :8443
webhook:
  port: 9443
leaderElection:
  leaderElect: true
  resourceName: c1f6bfd2.kueue.x-k8s.io
controller:
  groupKindConcurrency:
    Job.batch: 5
    Pod: 5
    Workload.kueue.x-k8s.io: 5
    LocalQueue.kueue.x-k8s.io: 1
    Cohort.kueue.x-k8s.io: 1
    ClusterQueue.kueue.x-k8s.io: 1
    ResourceFlavor.kueue.x-k8s.io: 1
clientConnection:
  qps: 50
  burst: 100
integrations:
  frameworks:
  - "batch/job"
  - "kubeflow.org/mpijob"
  - "ray.io/rayjob"
  - "ray.io/raycluster"
  - "jobset.x-k8s.io/jobset"
  - "kubeflow.org/paddlejob"
  - "kubeflow.org/pytorchjob"
  - "kubeflow.org/tfjob"
  - "kubeflow.org/xgboostjob"
  - "workload.codeflare.dev/appwrapper"
)";

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

TEST(KueueConfiguration, KueuesShippedConfigurationIsAcceptedAppWrapperIncluded) {
  auto c = decode(kKueueShippedConfiguration);
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->frameworks.size(), 10u);
  EXPECT_EQ(c->frameworks.back(), "workload.codeflare.dev/appwrapper");
  EXPECT_TRUE(c->ignored.empty());
}

// Kueue's shipped Configuration with a framework kueuepp does not integrate (Pods).
std::string with_pod_framework() { return std::string(kKueueShippedConfiguration) + "  - \"pod\"\n"; }

TEST(KueueConfiguration, AFrameworkNotIntegratedIsRefusedNamingIt) {
  auto r = decode(with_pod_framework());
  ASSERT_FALSE(r.has_value());
  const std::string& m = r.error().message;
  for (const char* named : {"integrations.frameworks[10] \"pod\"", "--allow-unsupported"}) {
    EXPECT_NE(m.find(named), std::string::npos) << named << " not in: " << m;
  }
  // What kueuepp does honour is not named.
  for (const char* honoured : {"batch/job\"", "jobset.x-k8s.io/jobset", "kubeflow.org/", "ray.io/", "workload.codeflare.dev",
                               "clientConnection", "leaderElection", "healthProbeBindAddress", "groupKindConcurrency",
                               "webhook"}) {
    EXPECT_EQ(m.find(honoured), std::string::npos) << honoured << " named in: " << m;
  }
}

TEST(KueueConfiguration, TheKubeflowKindsAndTrainJobAreIntegrated) {
  auto ok = decode(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {frameworks: [kubeflow.org/pytorchjob, kubeflow.org/tfjob, kubeflow.org/xgboostjob, "
      "kubeflow.org/paddlejob, kubeflow.org/jaxjob, kubeflow.org/mpijob]}\n");
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  EXPECT_EQ(ok->frameworks.size(), 6u);
  auto trainjob = decode(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {frameworks: [batch/job, trainer.kubeflow.org/trainjob]}\n");
  ASSERT_TRUE(trainjob.has_value()) << trainjob.error().message;
  EXPECT_EQ(trainjob->frameworks, (std::vector<std::string>{"batch/job", "trainer.kubeflow.org/trainjob"}));
  EXPECT_TRUE(trainjob->ignored.empty());
}

TEST(KueueConfiguration, TheRayKindsRayServiceIncludedAreIntegrated) {
  auto ray = decode(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {frameworks: [batch/job, ray.io/rayjob, ray.io/raycluster, ray.io/rayservice]}\n");
  ASSERT_TRUE(ray.has_value()) << ray.error().message;
  EXPECT_EQ(ray->frameworks.back(), "ray.io/rayservice");
  EXPECT_TRUE(ray->ignored.empty());
}

TEST(KueueConfiguration, AllowUnsupportedStartsWithoutThemAndListsEach) {
  auto c = decode(with_pod_framework(), true);
  ASSERT_TRUE(c.has_value()) << c.error().message;
  std::vector<std::string> fields;
  for (const auto& u : c->ignored) fields.push_back(u.field);
  EXPECT_EQ(fields.size(), 1u);  // pod (the rest are integrated)
  EXPECT_TRUE(c->webhook.configured);
  EXPECT_EQ(c->webhook.port, 9443);
  EXPECT_EQ(c->without_effect.size(), 1u);  // controller.groupKindConcurrency
  EXPECT_EQ(c->client_qps, 50);
  EXPECT_EQ(c->metrics_bind_address, ":8443");
  EXPECT_EQ(c->health_probe_bind_address, ":8081");
}

TEST(KueueConfiguration, ObjectRetentionPoliciesAreRead) {
  auto c = decode(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "objectRetentionPolicies: {workloads: {afterFinished: 1h30m, afterDeactivatedByKueue: 0s}}\n");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->workload_retention.after_finished, std::chrono::milliseconds(90 * 60 * 1000));
  EXPECT_EQ(c->workload_retention.after_deactivated_by_kueue, std::chrono::milliseconds(0));
  auto none = decode("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n");
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->workload_retention.after_finished.has_value());
  EXPECT_FALSE(none->workload_retention.after_deactivated_by_kueue.has_value());
  // Kueue's gate turns the policies off.
  auto gated = decode(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "featureGates: {ObjectRetentionPolicies: false}\n"
      "objectRetentionPolicies: {workloads: {afterFinished: 1h}}\n");
  ASSERT_TRUE(gated.has_value()) << gated.error().message;
  EXPECT_FALSE(gated->workload_retention.after_finished.has_value());
  ASSERT_EQ(gated->without_effect.size(), 1u);  // said at start, not silently dropped
  EXPECT_EQ(gated->without_effect[0].field, "objectRetentionPolicies.workloads.afterFinished");
  EXPECT_EQ(gated->without_effect[0].why, "the ObjectRetentionPolicies feature gate is off");
  auto negative = decode(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "objectRetentionPolicies: {workloads: {afterFinished: -1s}}\n");
  ASSERT_FALSE(negative.has_value());
  EXPECT_NE(negative.error().message.find("objectRetentionPolicies.workloads.afterFinished: must be greater than or equal to 0"),
            std::string::npos)
      << negative.error().message;
  auto unknown = decode(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "objectRetentionPolicies: {workloads: {afterFinish: 1h}}\n");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("objectRetentionPolicies.workloads.afterFinish: unknown field"), std::string::npos);
}

TEST(KueueConfiguration, EveryNotImplementedSectionIsRefused) {
  for (const char* section :
       {"multiKueue: {gcInterval: 1m}", "admissionFairSharing: {usageHalfLifeTime: 1h, usageSamplingInterval: 5m}",
        "visibilityServer: {bindPort: 8082}",
        "tls: {minVersion: VersionTLS13}", "pprofBindAddress: :8083",
        "resources: {transformations: [{input: nvidia.com/mig-4g.5gb, strategy: Replace}]}",
        "resources: {deviceClassMappings: [{name: gpu, deviceClassNames: [gpu.example.com]}]}",
        "integrations: {externalFrameworks: [Foo.v1.example.com]}", "metrics: {customLabels: [{name: team}]}",
        "metrics: {localQueueMetrics: {enable: true, localQueueSelector: {}}}",
        "leaderElection: {resourceLock: configmapsleases}", "health: {readinessEndpointName: /ready}"}) {
    auto r = decode(std::string("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n") + section + "\n");
    ASSERT_FALSE(r.has_value()) << section;
    EXPECT_NE(r.error().message.find("does not implement"), std::string::npos) << r.error().message;
  }
}

TEST(KueueConfiguration, UnknownFieldsAtAnyDepthAndUnknownFrameworksAndGatesAreErrors) {
  struct Case {
    const char* yaml;
    const char* want;
  } cases[] = {
      {"waitForPodsReady: {timeot: 5m}\n", "waitForPodsReady.timeot: unknown field"},
      {"metrics: {localQueueMetrics: {enabled: true}}\n", "metrics.localQueueMetrics.enabled: unknown field"},
      {"integrations: {frameworks: [batch/jobs]}\n", "unknown framework \"batch/jobs\""},
      {"featureGates: {PartialAdmision: true}\n", "featureGates.PartialAdmision: unrecognized feature gate"},
      {"waitForPodsReady: {enable: true}\n", "waitForPodsReady.enable: unknown field"},  // v1beta1 only
  };
  for (const auto& c : cases) {
    auto r = decode(std::string("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n") + c.yaml, true);
    ASSERT_FALSE(r.has_value()) << c.yaml;
    EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
  }
}

TEST(KueueConfiguration, FeatureGatesAreHonouredOrRefused) {
  auto c = decode(R"(
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {PartialAdmission: false, PriorityBoost: true, MetricsForCohorts: false,
               MetricForWorkloadCreationLatency: false, DisableWaitForPodsReady: true, TASProfileMixed: false,
               FlavorFungibility: true, TopologyAwareScheduling: false}
)");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_FALSE(c->engine.partial_admission);
  EXPECT_TRUE(c->engine.priority_boost);
  EXPECT_FALSE(c->metrics_cohorts);
  EXPECT_FALSE(c->metrics_workload_creation_latency);
  EXPECT_FALSE(c->wait_for_pods_ready.enabled);
  EXPECT_TRUE(c->ignored.empty());

  for (const char* gate : {"FlavorFungibility: false", "TopologyAwareScheduling: true", "VisibilityOnDemand: true",
                           "MultiKueue: true", "UnadmittedWorkloadsObservability: false", "ConcurrentAdmission: true"}) {
    auto r = decode(std::string("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates: {") +
                    gate + "}\n");
    ASSERT_FALSE(r.has_value()) << gate;
    EXPECT_NE(r.error().message.find(std::string("featureGates.") + std::string(gate).substr(0, std::string(gate).find(':'))),
              std::string::npos)
        << r.error().message;
  }
}

TEST(KueueConfiguration, LocalQueueMetricsNeedTheGateAndTheSetting) {
  auto on = decode("kind: Configuration\nmetrics: {localQueueMetrics: {enable: true}}\n");
  ASSERT_TRUE(on.has_value()) << on.error().message;
  EXPECT_TRUE(on->metrics_local_queue);
  auto gated = decode("kind: Configuration\nmetrics: {localQueueMetrics: {enable: true}}\nfeatureGates: {LocalQueueMetrics: false}\n");
  ASSERT_TRUE(gated.has_value()) << gated.error().message;
  EXPECT_FALSE(gated->metrics_local_queue);
}

TEST(KueueConfiguration, TheWebhookSectionsAreRead) {
  auto c = decode(R"(
kind: Configuration
webhook: {port: 9444, host: 10.0.0.1, certDir: /certs}
internalCertManagement: {enable: false, webhookServiceName: svc, webhookSecretName: sec}
)");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_TRUE(c->webhook.configured);
  EXPECT_EQ(c->webhook.port, 9444);
  EXPECT_EQ(c->webhook.host, "10.0.0.1");
  EXPECT_EQ(c->webhook.cert_dir, "/certs");
  EXPECT_FALSE(c->webhook.internal_cert_management);
  EXPECT_EQ(c->webhook.service_name, "svc");
  EXPECT_EQ(c->webhook.secret_name, "sec");
  EXPECT_FALSE(decode("kind: Configuration\nwebhook: {port: 70000}\n").has_value());
}

TEST(KueueConfiguration, LeaderElectionNamespaceIsRead) {
  auto c = decode("kind: Configuration\nleaderElection: {resourceNamespace: elections, resourceLock: leases}\n");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->leader_election_namespace, "elections");
}

TEST(FeatureGates, TheTableIsSortedAndDefaultsAreKueues) {
  auto gates = kueue_feature_gates();
  for (std::size_t i = 1; i < gates.size(); ++i) EXPECT_LT(gates[i - 1].name, gates[i].name);
  for (const auto& g : gates) EXPECT_EQ(find_feature_gate(g.name), &g) << g.name;
  FeatureGates values;
  EXPECT_TRUE(values.enabled("PartialAdmission"));
  EXPECT_FALSE(values.enabled("PriorityBoost"));
  values.set("PartialAdmission", false);
  EXPECT_FALSE(values.enabled("PartialAdmission"));
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
