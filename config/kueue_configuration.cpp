#include "config/kueue_configuration.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "kube/objects/field_reader.hpp"

namespace kueuepp::config {
namespace {

using kube::FieldPath;
using kube::FieldReader;
using kube::sub;

// Kueue's integration names (integrations.frameworks), and those kueuepp integrates
// (actors/watched_kinds.cpp has the integration of each).
constexpr std::string_view kSupportedFrameworks[] = {
    "batch/job",          "jobset.x-k8s.io/jobset", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob", "kubeflow.org/paddlejob", "kubeflow.org/jaxjob",     "kubeflow.org/mpijob",
    "ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice", "trainer.kubeflow.org/trainjob",
    "workload.codeflare.dev/appwrapper"};
constexpr std::string_view kKueueFrameworks[] = {
    "batch/job", "pod", "deployment", "statefulset", "jobset.x-k8s.io/jobset", "kubeflow.org/mpijob",
    "kubeflow.org/paddlejob", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob", "kubeflow.org/xgboostjob",
    "kubeflow.org/jaxjob", "trainer.kubeflow.org/trainjob", "ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice",
    "workload.codeflare.dev/appwrapper", "leaderworkerset.x-k8s.io/leaderworkerset",
    "sparkoperator.k8s.io/sparkapplication"};

constexpr std::string_view kMetadataName = "kubernetes.io/metadata.name";

bool supported_framework(std::string_view name) {
  return std::find(std::begin(kSupportedFrameworks), std::end(kSupportedFrameworks), name) !=
         std::end(kSupportedFrameworks);
}

bool known_framework(std::string_view name) {
  return std::find(std::begin(kKueueFrameworks), std::end(kKueueFrameworks), name) != std::end(kKueueFrameworks);
}

std::optional<std::chrono::milliseconds> precise_duration(FieldReader& r, const json::value* v, std::string_view path) {
  if (v == nullptr) return std::nullopt;
  std::string text = r.string(v, path);
  if (r.failed()) return std::nullopt;
  auto d = parse_go_duration(text);
  if (!d) {
    r.fail(path, d.error().message);
    return std::nullopt;
  }
  return *d;
}

std::optional<std::chrono::seconds> duration(FieldReader& r, const json::value* v, std::string_view path) {
  auto d = precise_duration(r, v, path);
  if (!d) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(*d);
}

/// One error naming every unsupported field, and the two ways on.
std::string refusal(const std::vector<UnsupportedField>& unsupported) {
  std::string text = "Configuration: kueuepp does not implement ";
  text += unsupported.size() == 1 ? "this setting" : "these settings";
  text += ", and will not start rather than ignore ";
  text += unsupported.size() == 1 ? "it" : "them";
  text += ":";
  for (const auto& u : unsupported) text += "\n  - " + u.field + ": " + u.why;
  text +=
      "\nRemove them from the file, or start with --allow-unsupported to run without them (each is then "
      "logged at start and exported as kueuepp_configuration_ignored_fields{field=...}).";
  return text;
}

}  // namespace

Expected<std::chrono::milliseconds> parse_go_duration(std::string_view text) {
  auto bad = [&] { return fail("invalid duration \"" + std::string(text) + "\" (expected e.g. 30s, 5m, 1h30m)"); };
  if (text.empty()) return bad();
  if (text == "0") return std::chrono::milliseconds(0);
  double total_ms = 0;
  std::size_t i = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    ++i;
  }
  if (i == text.size()) return bad();
  while (i < text.size()) {
    std::size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (i == start) return bad();
    double number = 0;
    auto [p, ec] = std::from_chars(text.data() + start, text.data() + i, number);
    if (ec != std::errc() || p != text.data() + i) return bad();
    std::size_t unit_start = i;
    while (i < text.size() && !((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    double scale = 0;
    if (unit == "ns") scale = 1e-6;
    else if (unit == "us" || unit == "µs") scale = 1e-3;
    else if (unit == "ms") scale = 1;
    else if (unit == "s") scale = 1e3;
    else if (unit == "m") scale = 60e3;
    else if (unit == "h") scale = 3600e3;
    else return bad();
    total_ms += number * scale;
  }
  if (total_ms > 1e15) return bad();
  auto ms = static_cast<std::int64_t>(std::llround(total_ms));
  return std::chrono::milliseconds(negative ? -ms : ms);
}

Expected<KueueConfiguration> decode_configuration(const json::value& doc, const ConfigurationDecodeOptions& options) {
  FieldReader r("Configuration");
  KueueConfiguration c;
  r.object(&doc, "");
  std::string api = r.string(FieldReader::get(&doc, "apiVersion"), "apiVersion");
  bool v1beta1 = api == "config.kueue.x-k8s.io/v1beta1";
  ConfigurationFieldReport fields = classify_configuration_fields(doc, v1beta1);
  for (const auto& path : fields.unknown) r.fail(path, "unknown field");
  std::vector<UnsupportedField> unsupported = std::move(fields.unsupported);
  c.without_effect = std::move(fields.without_effect);
  c.ns = r.string(FieldReader::get(&doc, "namespace"), "namespace", c.ns);
  c.manage_jobs_without_queue_name =
      r.boolean(FieldReader::get(&doc, "manageJobsWithoutQueueName"), "manageJobsWithoutQueueName").value_or(false);
  c.managed_jobs_namespace_selector =
      r.label_selector(FieldReader::get(&doc, "managedJobsNamespaceSelector"), "managedJobsNamespaceSelector");
  if (!c.managed_jobs_namespace_selector) {
    // Kueue's default: every namespace but kube-system and its own.
    core::LabelSelector defaulted;
    defaulted.match_expressions.push_back(
        {std::string(kMetadataName), core::LabelSelectorRequirement::Op::NotIn, {"kube-system", c.ns}});
    c.managed_jobs_namespace_selector = std::move(defaulted);
  }
  for (const std::string& prohibited : {std::string("kube-system"), c.ns}) {
    if (c.managed_jobs_namespace_selector->matches(core::Labels{{std::string(kMetadataName), prohibited}})) {
      r.fail("managedJobsNamespaceSelector", "should not match the \"" + prohibited + "\" namespace");
    }
  }

  // waitForPodsReady.
  const json::value* wfpr = FieldReader::get(&doc, "waitForPodsReady");
  auto& w = c.wait_for_pods_ready;
  if (v1beta1) {
    w.enabled = r.boolean(FieldReader::get(wfpr, "enable"), "waitForPodsReady.enable").value_or(false);
    w.timeout = std::chrono::minutes(5);
    w.block_admission = true;
  }
  if (wfpr != nullptr) {
    if (auto t = duration(r, FieldReader::get(wfpr, "timeout"), "waitForPodsReady.timeout")) {
      if (t->count() <= 0) r.fail("waitForPodsReady.timeout", "must be greater than 0");
      w.timeout = *t;
    }
    if (auto b = r.boolean(FieldReader::get(wfpr, "blockAdmission"), "waitForPodsReady.blockAdmission")) {
      w.block_admission = *b;
    }
    w.recovery_timeout = duration(r, FieldReader::get(wfpr, "recoveryTimeout"), "waitForPodsReady.recoveryTimeout");
    const json::value* rs = FieldReader::get(wfpr, "requeuingStrategy");
    std::string ts = r.enumeration(FieldReader::get(rs, "timestamp"), "waitForPodsReady.requeuingStrategy.timestamp",
                                   {"Eviction", "Creation"}, "Eviction");
    w.requeue_by_eviction_timestamp = ts == "Eviction";
    if (auto n = r.integer(FieldReader::get(rs, "backoffLimitCount"), "waitForPodsReady.requeuingStrategy.backoffLimitCount")) {
      w.backoff_limit_count = static_cast<std::int32_t>(*n);
    }
    if (auto n = r.integer(FieldReader::get(rs, "backoffBaseSeconds"), "waitForPodsReady.requeuingStrategy.backoffBaseSeconds")) {
      w.backoff_base_seconds = static_cast<std::int32_t>(*n);
    }
    if (auto n = r.integer(FieldReader::get(rs, "backoffMaxSeconds"), "waitForPodsReady.requeuingStrategy.backoffMaxSeconds")) {
      w.backoff_max_seconds = static_cast<std::int32_t>(*n);
    }
  }
  if (!w.recovery_timeout) w.recovery_timeout = w.timeout;
  c.engine.block_admission_until_pods_ready = w.enabled && w.block_admission;
  c.engine.requeue_by_eviction_timestamp = w.requeue_by_eviction_timestamp;

  // clientConnection.
  const json::value* cc = FieldReader::get(&doc, "clientConnection");
  if (const json::value* qps = FieldReader::get(cc, "qps")) {
    if (auto q = r.quantity(qps, "clientConnection.qps")) c.client_qps = static_cast<double>(q->milli()) / 1000.0;
  }
  if (auto b = r.integer(FieldReader::get(cc, "burst"), "clientConnection.burst")) c.client_burst = static_cast<std::int32_t>(*b);

  // integrations.
  const json::value* integ = FieldReader::get(&doc, "integrations");
  if (FieldReader::get(integ, "frameworks") != nullptr) {
    c.frameworks = r.strings(FieldReader::get(integ, "frameworks"), "integrations.frameworks");
    const FieldPath frameworks_path = "integrations.frameworks";
    for (std::size_t i = 0; i < c.frameworks.size(); ++i) {
      const std::string& name = c.frameworks[i];
      if (!known_framework(name)) {
        r.fail(sub(frameworks_path, i), "unknown framework \"" + name + "\"");
      } else if (!supported_framework(name)) {
        unsupported.push_back(
            {sub(frameworks_path, i).str() + " \"" + name + "\"",
             "kueuepp integrates batch/v1 Job, JobSet, the Kubeflow training jobs, TrainJob, MPIJob, RayJob, "
             "RayCluster, RayService and AppWrapper only so far"});
      }
    }
  }
  c.label_keys_to_copy = r.strings(FieldReader::get(integ, "labelKeysToCopy"), "integrations.labelKeysToCopy");

  // fairSharing: present means on (v1beta1: enable: true).
  if (const json::value* fs = FieldReader::get(&doc, "fairSharing")) {
    c.engine.fair_sharing = v1beta1 ? r.boolean(FieldReader::get(fs, "enable"), "fairSharing.enable").value_or(false) : true;
    const FieldPath strategies_path = "fairSharing.preemptionStrategies";
    auto strategies = r.strings(FieldReader::get(fs, "preemptionStrategies"), strategies_path);
    if (!strategies.empty()) {
      c.engine.fair_sharing_strategies.clear();
      for (std::size_t i = 0; i < strategies.size(); ++i) {
        if (strategies[i] == "LessThanOrEqualToFinalShare") {
          c.engine.fair_sharing_strategies.push_back(core::FairSharingStrategy::LessThanOrEqualToFinalShare);
        } else if (strategies[i] == "LessThanInitialShare") {
          c.engine.fair_sharing_strategies.push_back(core::FairSharingStrategy::LessThanInitialShare);
        } else {
          r.fail(sub(strategies_path, i),
                 "Unsupported value: \"" + strategies[i] +
                     "\": supported values: \"LessThanOrEqualToFinalShare\", \"LessThanInitialShare\"");
        }
      }
      using S = core::FairSharingStrategy;
      const auto& s = c.engine.fair_sharing_strategies;
      bool valid = (s.size() == 1) || (s.size() == 2 && s[0] == S::LessThanOrEqualToFinalShare && s[1] == S::LessThanInitialShare);
      if (!valid && !r.failed()) {
        r.fail("fairSharing.preemptionStrategies",
               "must be [LessThanOrEqualToFinalShare], [LessThanInitialShare] or [LessThanOrEqualToFinalShare, LessThanInitialShare]");
      }
    } else if (!v1beta1 && c.engine.fair_sharing && !r.failed()) {
      r.fail("fairSharing.preemptionStrategies", "Required value");
    }
  }

  // resources.
  const json::value* res = FieldReader::get(&doc, "resources");
  c.engine.exclude_resource_prefixes =
      r.strings(FieldReader::get(res, "excludeResourcePrefixes"), "resources.excludeResourcePrefixes");
  std::string qcs = r.enumeration(FieldReader::get(res, "quotaCheckStrategy"), "resources.quotaCheckStrategy",
                                  {"BlockUndeclared", "IgnoreUndeclared"}, "BlockUndeclared");
  c.engine.ignore_undeclared_resources = qcs == "IgnoreUndeclared";
  if (c.engine.ignore_undeclared_resources && !c.engine.exclude_resource_prefixes.empty()) {
    r.fail("resources", "quotaCheckStrategy IgnoreUndeclared cannot be combined with excludeResourcePrefixes");
  }
  if (const json::array* tr = r.array(FieldReader::get(res, "transformations"), "resources.transformations")) {
    if (!tr->empty()) {
      unsupported.push_back({"resources.transformations", "kueuepp does not transform resources yet"});
    }
  }

  // featureGates.
  const FieldPath gates_path = "featureGates";
  if (const json::object* gates = r.object(FieldReader::get(&doc, "featureGates"), gates_path)) {
    for (const auto& kv : *gates) {
      const FeatureGate* gate = find_feature_gate(kv.key());
      if (gate == nullptr) {
        r.fail(sub(gates_path, kv.key()), "unrecognized feature gate");
        continue;
      }
      auto b = r.boolean(&kv.value(), sub(gates_path, kv.key()));
      if (!b) continue;
      c.feature_gates.set(kv.key(), *b);
      if (auto why = unsupported_gate_value(*gate, *b)) {
        unsupported.push_back({sub(gates_path, kv.key()).str() + "=" + (*b ? "true" : "false"), *why});
      }
    }
  }
  const FeatureGates& g = c.feature_gates;
  c.engine.partial_admission = g.enabled("PartialAdmission");
  c.engine.priority_boost = g.enabled("PriorityBoost");
  c.metrics_cohorts = g.enabled("MetricsForCohorts");
  c.metrics_workload_creation_latency = g.enabled("MetricForWorkloadCreationLatency");
  if (g.enabled("DisableWaitForPodsReady")) {
    w.enabled = false;
    c.engine.block_admission_until_pods_ready = false;
  }

  // objectRetentionPolicies.
  const json::value* retention = FieldReader::get(FieldReader::get(&doc, "objectRetentionPolicies"), "workloads");
  for (auto [key, target] : {std::pair{"afterFinished", &c.workload_retention.after_finished},
                             std::pair{"afterDeactivatedByKueue", &c.workload_retention.after_deactivated_by_kueue}}) {
    const std::string path = std::string("objectRetentionPolicies.workloads.") + key;
    auto d = precise_duration(r, FieldReader::get(retention, key), path);
    if (d && d->count() < 0) r.fail(path, "must be greater than or equal to 0");
    if (!d || d->count() < 0) continue;
    if (g.enabled("ObjectRetentionPolicies")) {
      *target = *d;
    } else {
      // Kueue ignores the policies with its gate off; kueuepp does too, but says so.
      c.without_effect.push_back({path, "the ObjectRetentionPolicies feature gate is off"});
    }
  }

  // The webhook server and its certificates.
  if (const json::value* wh = FieldReader::get(&doc, "webhook")) {
    c.webhook.configured = true;
    if (auto port = r.integer(FieldReader::get(wh, "port"), "webhook.port")) {
      if (*port < 1 || *port > 65535) r.fail("webhook.port", "must be between 1 and 65535");
      c.webhook.port = static_cast<std::int32_t>(*port);
    }
    c.webhook.host = r.string(FieldReader::get(wh, "host"), "webhook.host");
    c.webhook.cert_dir = r.string(FieldReader::get(wh, "certDir"), "webhook.certDir", c.webhook.cert_dir);
  }
  if (const json::value* icm = FieldReader::get(&doc, "internalCertManagement")) {
    c.webhook.internal_cert_management =
        r.boolean(FieldReader::get(icm, "enable"), "internalCertManagement.enable").value_or(true);
    if (const json::value* n = FieldReader::get(icm, "webhookServiceName")) {
      c.webhook.service_name = r.string(n, "internalCertManagement.webhookServiceName");
    }
    if (const json::value* n = FieldReader::get(icm, "webhookSecretName")) {
      c.webhook.secret_name = r.string(n, "internalCertManagement.webhookSecretName");
    }
  }

  // Manager endpoints and leader election.
  const json::value* metrics = FieldReader::get(&doc, "metrics");
  if (const json::value* a = FieldReader::get(metrics, "bindAddress")) {
    c.metrics_bind_address = r.string(a, "metrics.bindAddress");
  }
  c.metrics_cluster_queue_resources =
      r.boolean(FieldReader::get(metrics, "enableClusterQueueResources"), "metrics.enableClusterQueueResources")
          .value_or(false);
  c.metrics_local_queue = r.boolean(FieldReader::get(FieldReader::get(metrics, "localQueueMetrics"), "enable"),
                                    "metrics.localQueueMetrics.enable")
                              .value_or(false) &&
                          g.enabled("LocalQueueMetrics");
  if (const json::value* a = FieldReader::get(FieldReader::get(&doc, "health"), "healthProbeBindAddress")) {
    c.health_probe_bind_address = r.string(a, "health.healthProbeBindAddress");
  }
  const json::value* le = FieldReader::get(&doc, "leaderElection");
  c.leader_elect = r.boolean(FieldReader::get(le, "leaderElect"), "leaderElection.leaderElect").value_or(c.leader_elect);
  c.leader_election_id = r.string(FieldReader::get(le, "resourceName"), "leaderElection.resourceName", c.leader_election_id);
  if (const json::value* ns = FieldReader::get(le, "resourceNamespace")) {
    c.leader_election_namespace = r.string(ns, "leaderElection.resourceNamespace");
  }
  const std::string lock = r.string(FieldReader::get(le, "resourceLock"), "leaderElection.resourceLock", "leases");
  if (lock != "leases") {
    unsupported.push_back({"leaderElection.resourceLock=" + lock, "kueuepp elects its leaders with Leases only"});
  }
  if (auto d = precise_duration(r, FieldReader::get(le, "leaseDuration"), "leaderElection.leaseDuration")) c.lease_duration = *d;
  if (auto d = precise_duration(r, FieldReader::get(le, "renewDeadline"), "leaderElection.renewDeadline")) c.renew_deadline = *d;
  if (auto d = precise_duration(r, FieldReader::get(le, "retryPeriod"), "leaderElection.retryPeriod")) c.retry_period = *d;

  if (r.failed()) return unexpected(r.error());
  if (!unsupported.empty() && !options.allow_unsupported) return fail(refusal(unsupported));
  c.ignored = std::move(unsupported);
  return c;
}

}  // namespace kueuepp::config
