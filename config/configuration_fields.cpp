#include "config/configuration_fields.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace kueuepp::config {
namespace {

enum class Use { Read, Section, Unsupported, NoEffect };

struct FieldRule {
  std::string_view path;
  Use use;
  std::string_view why = {};
  bool v1beta1_only = false;
};

constexpr std::array kRules = {
    FieldRule{"apiVersion", Use::Read},
    FieldRule{"kind", Use::Read},
    FieldRule{"namespace", Use::Read},
    FieldRule{"manageJobsWithoutQueueName", Use::Read},
    FieldRule{"managedJobsNamespaceSelector", Use::Read},
    FieldRule{"waitForPodsReady", Use::Section},
    FieldRule{"waitForPodsReady.enable", Use::Read, {}, true},
    FieldRule{"waitForPodsReady.timeout", Use::Read},
    FieldRule{"waitForPodsReady.blockAdmission", Use::Read},
    FieldRule{"waitForPodsReady.recoveryTimeout", Use::Read},
    FieldRule{"waitForPodsReady.requeuingStrategy", Use::Section},
    FieldRule{"waitForPodsReady.requeuingStrategy.timestamp", Use::Read},
    FieldRule{"waitForPodsReady.requeuingStrategy.backoffLimitCount", Use::Read},
    FieldRule{"waitForPodsReady.requeuingStrategy.backoffBaseSeconds", Use::Read},
    FieldRule{"waitForPodsReady.requeuingStrategy.backoffMaxSeconds", Use::Read},
    FieldRule{"clientConnection", Use::Section},
    FieldRule{"clientConnection.qps", Use::Read},
    FieldRule{"clientConnection.burst", Use::Read},
    FieldRule{"integrations", Use::Section},
    FieldRule{"integrations.frameworks", Use::Read},
    FieldRule{"integrations.labelKeysToCopy", Use::Read},
    FieldRule{"integrations.externalFrameworks", Use::Unsupported,
              "kueuepp does not run external framework integrations"},
    FieldRule{"integrations.podOptions", Use::Unsupported, "kueuepp does not integrate Pods", true},
    FieldRule{"fairSharing", Use::Section},
    FieldRule{"fairSharing.enable", Use::Read, {}, true},
    FieldRule{"fairSharing.preemptionStrategies", Use::Read},
    FieldRule{"resources", Use::Section},
    FieldRule{"resources.quotaCheckStrategy", Use::Read},
    FieldRule{"resources.excludeResourcePrefixes", Use::Read},
    FieldRule{"resources.transformations", Use::Read},
    FieldRule{"resources.deviceClassMappings", Use::Unsupported,
              "kueuepp does not account Dynamic Resource Allocation devices"},
    FieldRule{"featureGates", Use::Read},
    FieldRule{"leaderElection", Use::Section},
    FieldRule{"leaderElection.leaderElect", Use::Read},
    FieldRule{"leaderElection.resourceName", Use::Read},
    FieldRule{"leaderElection.resourceNamespace", Use::Read},
    FieldRule{"leaderElection.resourceLock", Use::Read},
    FieldRule{"leaderElection.leaseDuration", Use::Read},
    FieldRule{"leaderElection.renewDeadline", Use::Read},
    FieldRule{"leaderElection.retryPeriod", Use::Read},
    FieldRule{"metrics", Use::Section},
    FieldRule{"metrics.bindAddress", Use::Read},
    FieldRule{"metrics.enableClusterQueueResources", Use::Read},
    FieldRule{"metrics.localQueueMetrics", Use::Section},
    FieldRule{"metrics.localQueueMetrics.enable", Use::Read},
    FieldRule{"metrics.localQueueMetrics.localQueueSelector", Use::Unsupported,
              "kueuepp exports the metrics of every LocalQueue or of none"},
    FieldRule{"metrics.customLabels", Use::Unsupported, "kueuepp does not add custom metric labels"},
    FieldRule{"health", Use::Section},
    FieldRule{"health.healthProbeBindAddress", Use::Read},
    FieldRule{"health.readinessEndpointName", Use::Unsupported, "kueuepp serves readiness at /readyz only"},
    FieldRule{"health.livenessEndpointName", Use::Unsupported, "kueuepp serves liveness at /healthz only"},
    FieldRule{"controller", Use::Section},
    FieldRule{"controller.groupKindConcurrency", Use::NoEffect,
              "kueuepp's actors are not per-kind worker pools; each object kind is handled as it arrives"},
    FieldRule{"controller.cacheSyncTimeout", Use::NoEffect,
              "kueuepp's watches wait for their first list however long it takes, and say so in /readyz"},
    FieldRule{"pprofBindAddress", Use::Unsupported, "kueuepp has no Go profiler; see /debug/actors instead"},
    FieldRule{"internalCertManagement", Use::Section},
    FieldRule{"internalCertManagement.enable", Use::Read},
    FieldRule{"internalCertManagement.webhookServiceName", Use::Read},
    FieldRule{"internalCertManagement.webhookSecretName", Use::Read},
    FieldRule{"webhook", Use::Section},
    FieldRule{"webhook.port", Use::Read},
    FieldRule{"webhook.host", Use::Read},
    FieldRule{"webhook.certDir", Use::Read},
    FieldRule{"tls", Use::Unsupported,
              "kueuepp's webhook server accepts TLS 1.2 and 1.3 with OpenSSL's default ciphers and curves; they "
              "cannot be chosen yet"},
    FieldRule{"multiKueue", Use::Unsupported, "kueuepp does not implement MultiKueue"},
    FieldRule{"admissionFairSharing", Use::Unsupported, "kueuepp does not implement admission fair sharing"},
    FieldRule{"objectRetentionPolicies", Use::Section},
    FieldRule{"objectRetentionPolicies.workloads", Use::Section},
    FieldRule{"objectRetentionPolicies.workloads.afterFinished", Use::Read},
    FieldRule{"objectRetentionPolicies.workloads.afterDeactivatedByKueue", Use::Read},
    FieldRule{"visibilityServer", Use::Unsupported,
              "kueuepp does not implement visibilityServer: serve the visibility API with --visibility-listen"},
    FieldRule{"queueVisibility", Use::Unsupported, "kueuepp does not serve queue visibility", true},
};

const FieldRule* find_rule(std::string_view path, bool v1beta1) {
  auto it = std::find_if(kRules.begin(), kRules.end(), [&](const FieldRule& r) { return r.path == path; });
  if (it == kRules.end() || (it->v1beta1_only && !v1beta1)) return nullptr;
  return &*it;
}

void classify(const json::object& obj, const std::string& prefix, bool v1beta1, ConfigurationFieldReport& out) {
  for (const auto& kv : obj) {
    const std::string path = prefix.empty() ? std::string(kv.key()) : prefix + "." + std::string(kv.key());
    const FieldRule* rule = find_rule(path, v1beta1);
    if (rule == nullptr) {
      out.unknown.push_back(path);
      continue;
    }
    switch (rule->use) {
      case Use::Read: break;
      case Use::Section:
        // A section that is not an object is the decoder's to refuse, with its type.
        if (kv.value().is_object()) classify(kv.value().get_object(), path, v1beta1, out);
        break;
      case Use::Unsupported: out.unsupported.push_back({path, std::string(rule->why)}); break;
      case Use::NoEffect: out.without_effect.push_back({path, std::string(rule->why)}); break;
    }
  }
}

}  // namespace

ConfigurationFieldReport classify_configuration_fields(const json::value& doc, bool v1beta1) {
  ConfigurationFieldReport report;
  if (doc.is_object()) classify(doc.get_object(), "", v1beta1, report);
  return report;
}

}  // namespace kueuepp::config
