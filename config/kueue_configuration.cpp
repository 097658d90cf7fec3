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

constexpr std::string_view kTopLevel[] = {
    "apiVersion", "kind", "namespace", "manageJobsWithoutQueueName", "managedJobsNamespaceSelector",
    "internalCertManagement", "waitForPodsReady", "clientConnection", "integrations", "multiKueue",
    "fairSharing", "admissionFairSharing", "resources", "featureGates", "objectRetentionPolicies",
    "visibilityServer", "webhook", "leaderElection", "metrics", "health", "pprofBindAddress",
    "controller", "tls", "queueVisibility"};

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

Expected<KueueConfiguration> decode_configuration(const json::value& doc) {
  FieldReader r("Configuration");
  KueueConfiguration c;
  if (const json::object* top = r.object(&doc, "")) {
    for (const auto& kv : *top) {
      std::string_view key = kv.key();
      if (std::find(std::begin(kTopLevel), std::end(kTopLevel), key) == std::end(kTopLevel)) {
        r.fail(key, "unknown field");
      }
    }
  }
  std::string api = r.string(FieldReader::get(&doc, "apiVersion"), "apiVersion");
  bool v1beta1 = api == "config.kueue.x-k8s.io/v1beta1";
  c.ns = r.string(FieldReader::get(&doc, "namespace"), "namespace", c.ns);
  c.manage_jobs_without_queue_name =
      r.boolean(FieldReader::get(&doc, "manageJobsWithoutQueueName"), "manageJobsWithoutQueueName").value_or(false);
  c.managed_jobs_namespace_selector =
      r.label_selector(FieldReader::get(&doc, "managedJobsNamespaceSelector"), "managedJobsNamespaceSelector");

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
      r.fail("resources.transformations", "resource transformations are not supported by kueuepp yet");
    }
  }

  // featureGates.
  const FieldPath gates_path = "featureGates";
  if (const json::object* gates = r.object(FieldReader::get(&doc, "featureGates"), gates_path)) {
    for (const auto& kv : *gates) {
      auto b = r.boolean(&kv.value(), sub(gates_path, kv.key()));
      if (b) c.feature_gates[std::string(kv.key())] = *b;
    }
  }
  if (auto it = c.feature_gates.find("PartialAdmission"); it != c.feature_gates.end()) {
    c.engine.partial_admission = it->second;
  }

  // Manager endpoints and leader election.
  c.metrics_bind_address = r.string(FieldReader::get(FieldReader::get(&doc, "metrics"), "bindAddress"),
                                    "metrics.bindAddress", c.metrics_bind_address);
  const json::value* metrics = FieldReader::get(&doc, "metrics");
  c.metrics_cluster_queue_resources =
      r.boolean(FieldReader::get(metrics, "enableClusterQueueResources"), "metrics.enableClusterQueueResources")
          .value_or(false);
  c.metrics_local_queue = r.boolean(FieldReader::get(FieldReader::get(metrics, "localQueueMetrics"), "enable"),
                                    "metrics.localQueueMetrics.enable")
                              .value_or(false);
  c.health_probe_bind_address = r.string(FieldReader::get(FieldReader::get(&doc, "health"), "healthProbeBindAddress"),
                                         "health.healthProbeBindAddress", c.health_probe_bind_address);
  const json::value* le = FieldReader::get(&doc, "leaderElection");
  c.leader_elect = r.boolean(FieldReader::get(le, "leaderElect"), "leaderElection.leaderElect").value_or(c.leader_elect);
  c.leader_election_id = r.string(FieldReader::get(le, "resourceName"), "leaderElection.resourceName", c.leader_election_id);
  if (auto d = precise_duration(r, FieldReader::get(le, "leaseDuration"), "leaderElection.leaseDuration")) c.lease_duration = *d;
  if (auto d = precise_duration(r, FieldReader::get(le, "renewDeadline"), "leaderElection.renewDeadline")) c.renew_deadline = *d;
  if (auto d = precise_duration(r, FieldReader::get(le, "retryPeriod"), "leaderElection.retryPeriod")) c.retry_period = *d;

  if (r.failed()) return unexpected(r.error());
  return c;
}

}  // namespace kueuepp::config
