// `kueuepp controller` (against a cluster) and `kueuepp standalone` (the embedded API
// server with Kueue's CRDs, the controller and a job runner, driven with kubectl).
// Both stop cleanly on SIGINT/SIGTERM: probes, controller (watches, then actors), job
// runner, client, server, in that order.

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "actors/controller.hpp"
#include "cmd/commands.hpp"
#include "cmd/flag_reader.hpp"
#include "cmd/standalone/appwrapper_runner.hpp"
#include "cmd/standalone/job_runner.hpp"
#include "cmd/standalone/jobset_runner.hpp"
#include "cmd/secure_listener.hpp"
#include "cmd/standalone/kubeflow_runner.hpp"
#include "cmd/standalone/ray_runner.hpp"
#include "cmd/standalone/trainjob_runner.hpp"
#include "cmd/standalone/probe_server.hpp"
#include "cmd/web/web_assets.hpp"
#include "cmd/standalone/visibility_registration.hpp"
#include "config/kueue_configuration.hpp"
#include "kube/client/client.hpp"
#include "kube/client/in_cluster.hpp"
#include "kube/client/kubeconfig.hpp"
#include "kube/json/yaml.hpp"
#include "kube/leader/lease_names.hpp"
#include "kube/apiserver/server/api_server.hpp"

namespace kueuepp::cmd {
namespace {

constexpr const char* kControllerUsage =
    "usage: kueuepp controller [--kubeconfig FILE] [--config FILE] [--probe-listen ADDR:PORT]\n"
    "                          [--leader-elect true|false] [--shards N] [--namespace NS] [--identity ID]\n"
    "                          [--threads N] [--explanation-interval SECONDS] [--cpu-placement auto|spread]\n"
    "                          [--io-batch-interval MS] [--log-level LEVEL] [--allow-unsupported]\n"
    "                          [--webhook-listen ADDR:PORT] [--webhook-cert-dir DIR] [--webhook-url-base URL]\n"
    "                          [--webhook-service NAME] [--webhook-secret NAME] [--visibility-listen ADDR:PORT]\n"
    "                          [--health-listen ADDR:PORT] [--secure-listen ADDR:PORT] [--secure-cert-dir DIR]\n"
    "                          [--secure-client-ca-file FILE]\n"
    "\n"
    "Runs the controller against a Kubernetes cluster (the kubeconfig, or in-cluster configuration).\n"
    "  --kubeconfig FILE        cluster to use (default: KUBECONFIG, ~/.kube/config, or in-cluster)\n"
    "  --config FILE            Kueue's Configuration (config.kueue.x-k8s.io/v1beta2); a setting kueuepp\n"
    "                           does not implement is refused, with its name\n"
    "  --allow-unsupported      start anyway without those settings: each is logged and exported as\n"
    "                           kueuepp_configuration_ignored_fields{field=...}\n"
    "  --probe-listen ADDR:PORT /healthz, /readyz, /metrics, /debug/... and the web view at /, plain HTTP without\n"
    "                           authentication: keep it on loopback (default 127.0.0.1:8082; `kubectl\n"
    "                           port-forward` reaches it in a pod)\n"
    "  --health-listen ADDR:PORT\n"
    "                           /healthz, /readyz and /livez only, plain, for the kubelet (default: the\n"
    "                           Configuration's health.healthProbeBindAddress; none when unset)\n"
    "  --secure-listen ADDR:PORT\n"
    "                           /metrics, /debug/..., the web view and its stream over HTTPS, every request\n"
    "                           authenticated (TokenReview of a bearer token, or a client certificate) and\n"
    "                           authorized (SubjectAccessReview: verb get on the non-resource URL, e.g.\n"
    "                           /metrics), as Kueue serves its metrics (default: the Configuration's\n"
    "                           metrics.bindAddress, Kueue's :8443; \"0\" or unset: none)\n"
    "  --secure-cert-dir DIR    its certificate from DIR/tls.crt and DIR/tls.key, reloaded when they change\n"
    "                           (default: a self-signed one made at start for the Service kueuepp-metrics)\n"
    "  --secure-client-ca-file FILE\n"
    "                           client certificates signed by a CA in FILE (PEM) authenticate there as\n"
    "                           their CN, in the groups of their O entries (default: bearer tokens only)\n"
    "  --leader-elect BOOL      elect on coordination.k8s.io Leases (default: the Configuration's\n"
    "                           leaderElection.leaderElect, true); false: act on every cohort tree at once\n"
    "  --shards N               cohort trees are spread over N shards, each with its own Lease, shared\n"
    "                           among the replicas (default 1: one leader)\n"
    "  --namespace NS           namespace of the Leases (default: POD_NAMESPACE, the service account's\n"
    "                           namespace, else the Configuration's namespace)\n"
    "  --identity ID            this replica's name in the Leases (default: POD_NAME or the host name,\n"
    "                           plus a random suffix)\n"
    "  --explanation-interval SECONDS\n"
    "                           a pending workload's QuotaReserved=False message is rewritten at most\n"
    "                           this often, its first one at once (default 0: every change, as Kueue)\n"
    "  --cpu-placement MODE     auto (default): the controller's threads share one CPU while it needs\n"
    "                           less than half of one and spread again when it needs more or that CPU\n"
    "                           is busy (fewer cross-CPU wake-ups); spread: leave placement to the kernel\n"
    "  --io-batch-interval MS   a busy API client looks at its connections at most this often, handling\n"
    "                           what arrived meanwhile in one wake-up (default 20; 0: at every event)\n"
    "  --webhook-listen ADDR:PORT\n"
    "                           serve Kueue's admission webhooks (mjob.kb.io, vjob.kb.io, the Kueue kinds')\n"
    "                           over HTTPS here, from every replica (deploy/: 0.0.0.0:9443); /readyz waits\n"
    "                           for a valid certificate. Default: no webhook server\n"
    "  --webhook-cert-dir DIR   the serving certificate from DIR/tls.crt and DIR/tls.key (cert-manager),\n"
    "                           reloaded when they change. Default: kueuepp makes a CA and a certificate\n"
    "                           for the Service, keeps them in the Secret --webhook-secret, renews them well\n"
    "                           before expiry and writes the caBundle into the webhook configurations\n"
    "  --webhook-url-base URL   outside the cluster: register the webhooks by URL, e.g.\n"
    "                           https://127.0.0.1:9443 (kueuepp writes both webhook configurations itself,\n"
    "                           with a CA it keeps in memory); listens on the URL's port unless\n"
    "                           --webhook-listen says otherwise\n"
    "  --webhook-service NAME   the webhook Service, in --namespace (default kueuepp-webhook-service)\n"
    "  --webhook-secret NAME    the Secret of the certificates, in --namespace\n"
    "                           (default kueuepp-webhook-server-cert)\n"
    "  --visibility-listen ADDR:PORT\n"
    "                           serve Kueue's visibility API (visibility.kueue.x-k8s.io v1beta2, v1beta1:\n"
    "                           pending workloads with their positions) over HTTPS here, from every\n"
    "                           replica, as an aggregated API (deploy/: 0.0.0.0:8083; Kueue's\n"
    "                           8082 is kueuepp's probe port). Default: not served\n";

constexpr const char* kStandaloneUsage =
    "usage: kueuepp standalone [--listen ADDR:PORT] [--data-dir DIR] [--kubeconfig-out FILE]\n"
    "                          [--crds PATH]... [--config FILE] [--probe-listen ADDR:PORT]\n"
    "                          [--job-time-scale X] [--default-job-duration SECONDS] [--io-batch-interval MS]\n"
    "                          [--tls] [--token-auth-file FILE] [--client-ca-file FILE] [--log-level LEVEL]\n"
    "                          [--allow-unsupported]\n"
    "\n"
    "Runs the embedded API server with Kueue's CRDs, the controller, and a job runner that runs\n"
    "admitted Jobs for the duration their container asks for (`sleep N`).\n"
    "  --listen ADDR:PORT        API server address (default 127.0.0.1:6443)\n"
    "  --data-dir DIR            keep objects in DIR across restarts (default: memory only)\n"
    "  --kubeconfig-out FILE     kubeconfig for kubectl (default ./kueuepp.kubeconfig)\n"
    "  --crds PATH               CRD manifests (default: deploy/crds, else ../shared/kueue-crds)\n"
    "  --tls                     serve HTTPS with a generated CA and require the kubeconfig's bearer token\n"
    "  --token-auth-file FILE    users of the API server (CSV token,user,uid,\"group1,group2\"), authorized\n"
    "                            by RBAC; the kubeconfig's token stays system:masters (kubectl sends\n"
    "                            tokens over HTTPS only: use with --tls)\n"
    "  --client-ca-file FILE     with --tls: client certificates signed by a CA in FILE (PEM) authenticate\n"
    "                            as their CN, in the groups of their O entries, authorized by RBAC\n"
    "  --config FILE             Kueue's Configuration (config.kueue.x-k8s.io/v1beta2)\n"
    "  --allow-unsupported       start even if it asks for what kueuepp does not implement (see controller)\n"
    "  --probe-listen ADDR:PORT  /healthz, /readyz, /metrics, /debug/... and the web view at / (default 127.0.0.1:8082)\n"
    "  --health-listen ADDR:PORT, --secure-listen ADDR:PORT, --secure-cert-dir DIR, --secure-client-ca-file FILE\n"
    "                            as for `kueuepp controller` (the secure listener's reviews go to the\n"
    "                            embedded API server; the Configuration's metrics.bindAddress stays plain\n"
    "                            /metrics here)\n"
    "  --job-time-scale X        run jobs X times faster (default 1)\n"
    "  --io-batch-interval MS    the controller's API clients look at their connections at most this\n"
    "                            often when busy (default 20; 0: at every event)\n";

struct Flags {
  // standalone
  kube::server::ApiServerOptions server;
  std::string kubeconfig_out = "kueuepp.kubeconfig";
  double time_scale = 1.0;
  std::chrono::milliseconds default_duration{10'000};
  // controller
  std::string kubeconfig;
  std::optional<bool> leader_elect;
  std::uint32_t shards = 1;
  std::string lease_namespace;
  std::string identity;
  bool share_one_cpu_when_light = true;
  std::string webhook_listen;
  std::string webhook_cert_dir;
  std::string webhook_url_base;
  std::string webhook_service;
  std::string webhook_secret;
  std::string visibility_listen;
  // both
  std::string config_file;
  bool allow_unsupported = false;
  std::string probe_listen = "127.0.0.1:8082";
  std::string health_listen;  ///< probes only; empty: the Configuration's, else none
  std::string secure_listen;  ///< HTTPS with delegated auth; empty: the Configuration's (controller), else none
  std::string secure_cert_dir;
  std::string secure_client_ca_file;
  std::size_t threads = 2;
  std::string log_level = "info";
  // 0: every change of a pending workload's message is written, as Kueue does. Pacing
  // saves writes but delays admissions of a deep queue (docs/performance.md).
  std::chrono::milliseconds explanation_interval{0};
  // What arrives while a busy client's io thread sleeps shares one wake-up
  // (ClientOptions::io_batch_interval): it roughly halves the controller's CPU on a deep
  // queue for admission times within a second (docs/performance.md).
  std::chrono::microseconds io_batch_interval{20'000};
};

std::string parse(Args args, Flags& f, bool standalone) {
  FlagReader reader(args);
  while (const auto next = reader.next()) {
    const std::string_view a = *next;
    std::string v;
    // A number from lo to hi, both included (an interval: 0 allowed).
    auto in_range = [&](double& out, double lo, double hi) -> bool {
      if (!reader.value(v)) return false;
      try {
        std::size_t used = 0;
        out = std::stod(v, &used);
        return used == v.size() && out >= lo && out <= hi;
      } catch (const std::exception&) {
        return false;
      }
    };
    // Positive and finite (an "inf" would be cast to an integer count below).
    auto number = [&](double& out) { return in_range(out, 0, std::numeric_limits<double>::max()) && out > 0; };
    double d = 0;
    if (a == "--config") {
      if (!reader.value(f.config_file)) return "--config needs a file";
    } else if (a == "--probe-listen") {
      if (!reader.value(f.probe_listen)) return "--probe-listen needs ADDR:PORT";
    } else if (a == "--allow-unsupported") {
      f.allow_unsupported = true;
    } else if (a == "--log-level") {
      if (!reader.value(f.log_level)) return "--log-level needs a level";
    } else if (a == "--explanation-interval") {
      double seconds = 0;
      if (!in_range(seconds, 0, 3600)) return "--explanation-interval needs a number of seconds from 0 to 3600";
      f.explanation_interval = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
    } else if (a == "--io-batch-interval") {
      double ms = 0;
      if (!in_range(ms, 0, 1000)) return "--io-batch-interval needs a number of milliseconds from 0 to 1000";
      f.io_batch_interval = std::chrono::microseconds(static_cast<std::int64_t>(ms * 1000));
    } else if (a == "--threads") {
      if (!number(d)) return "--threads needs a positive number";
      f.threads = static_cast<std::size_t>(d);
    } else if (!standalone && a == "--kubeconfig") {
      if (!reader.value(f.kubeconfig)) return "--kubeconfig needs a file";
    } else if (!standalone && a == "--leader-elect") {
      if (!reader.value(v) || (v != "true" && v != "false")) return "--leader-elect needs true or false";
      f.leader_elect = v == "true";
    } else if (!standalone && a == "--shards") {
      if (!number(d) || d != static_cast<double>(static_cast<std::uint32_t>(d)) || d > 1024) {
        return "--shards needs a whole number from 1 to 1024";
      }
      f.shards = static_cast<std::uint32_t>(d);
    } else if (!standalone && a == "--namespace") {
      if (!reader.value(f.lease_namespace) || f.lease_namespace.empty()) return "--namespace needs a namespace";
    } else if (!standalone && a == "--cpu-placement") {
      if (!reader.value(v) || (v != "auto" && v != "spread")) return "--cpu-placement needs auto or spread";
      f.share_one_cpu_when_light = v == "auto";
    } else if (!standalone && a == "--webhook-listen") {
      if (!reader.value(f.webhook_listen) || f.webhook_listen.rfind(':') == std::string::npos) {
        return "--webhook-listen needs ADDR:PORT";
      }
    } else if (!standalone && a == "--webhook-cert-dir") {
      if (!reader.value(f.webhook_cert_dir) || f.webhook_cert_dir.empty()) return "--webhook-cert-dir needs a directory";
    } else if (!standalone && a == "--webhook-url-base") {
      if (!reader.value(f.webhook_url_base) || f.webhook_url_base.rfind("https://", 0) != 0) {
        return "--webhook-url-base needs an https:// URL (https://HOST:PORT)";
      }
      while (!f.webhook_url_base.empty() && f.webhook_url_base.back() == '/') f.webhook_url_base.pop_back();
    } else if (!standalone && a == "--webhook-service") {
      if (!reader.value(f.webhook_service) || f.webhook_service.empty()) return "--webhook-service needs a name";
    } else if (!standalone && a == "--webhook-secret") {
      if (!reader.value(f.webhook_secret) || f.webhook_secret.empty()) return "--webhook-secret needs a name";
    } else if (a == "--health-listen" || a == "--secure-listen") {
      std::string& out = a == "--health-listen" ? f.health_listen : f.secure_listen;
      if (!reader.value(out) || out.rfind(':') == std::string::npos) return std::string(a) + " needs ADDR:PORT";
    } else if (a == "--secure-cert-dir") {
      if (!reader.value(f.secure_cert_dir) || f.secure_cert_dir.empty()) return "--secure-cert-dir needs a directory";
    } else if (a == "--secure-client-ca-file") {
      if (!reader.value(f.secure_client_ca_file) || f.secure_client_ca_file.empty()) return "--secure-client-ca-file needs a file";
    } else if (a == "--visibility-listen") {
      if (!reader.value(f.visibility_listen) || f.visibility_listen.rfind(':') == std::string::npos) {
        return "--visibility-listen needs ADDR:PORT";
      }
    } else if (!standalone && a == "--identity") {
      if (!reader.value(f.identity) || f.identity.empty()) return "--identity needs a name";
    } else if (standalone && a == "--listen") {
      if (!reader.value(f.server.listen)) return "--listen needs ADDR:PORT";
    } else if (standalone && a == "--data-dir") {
      if (!reader.value(f.server.data_dir)) return "--data-dir needs a directory";
    } else if (standalone && a == "--kubeconfig-out") {
      if (!reader.value(f.kubeconfig_out)) return "--kubeconfig-out needs a file";
    } else if (standalone && a == "--crds") {
      if (!reader.value(v)) return "--crds needs a path";
      f.server.crd_paths.push_back(v);
    } else if (standalone && a == "--tls") {
      f.server.tls = true;
    } else if (standalone && a == "--token-auth-file") {
      if (!reader.value(f.server.token_auth_file)) return "--token-auth-file needs a file";
    } else if (standalone && a == "--client-ca-file") {
      if (!reader.value(f.server.client_ca_file)) return "--client-ca-file needs a file";
    } else if (standalone && a == "--job-time-scale") {
      if (!number(f.time_scale)) return "--job-time-scale needs a positive number";
    } else if (standalone && a == "--default-job-duration") {
      if (!number(d)) return "--default-job-duration needs a positive number of seconds";
      f.default_duration = std::chrono::milliseconds(static_cast<std::int64_t>(d * 1000));
    } else {
      return "unknown argument \"" + std::string(a) + "\"";
    }
  }
  return {};
}

Expected<config::KueueConfiguration> load_configuration(const std::string& path, bool allow_unsupported) {
  if (path.empty()) return config::KueueConfiguration{};
  std::ifstream in(path);
  if (!in) return fail("cannot read the configuration file " + path);
  std::stringstream text;
  text << in.rdbuf();
  auto doc = json::parse_yaml(text.str());
  if (!doc) return fail(path + ": " + doc.error().message);
  auto cfg = config::decode_configuration(*doc, config::ConfigurationDecodeOptions{allow_unsupported});
  if (!cfg) return fail(path + ": " + cfg.error().message);
  for (const auto& u : cfg->ignored) {
    spdlog::warn("configuration: {} is not implemented by kueuepp and is ignored (--allow-unsupported): {}", u.field,
                 u.why);
  }
  for (const auto& u : cfg->without_effect) spdlog::info("configuration: {} has no effect in kueuepp: {}", u.field, u.why);
  return cfg;
}

/// Kueue's bind addresses leave the host out (":8081"): every interface.
std::string listen_address(const std::string& bind_address) {
  return bind_address.starts_with(":") ? "0.0.0.0" + bind_address : bind_address;
}

/// Where the kubelet's probes are served: the flag, else the Configuration's health
/// address (probes only, as Kueue's health port). In a cluster (`controller`), the
/// Configuration's metrics address is the secure listener's, as Kueue's is.
void apply_configured_addresses(const config::KueueConfiguration& cfg, Flags& f, bool standalone) {
  if (f.health_listen.empty() && cfg.health_probe_bind_address) {
    f.health_listen = listen_address(*cfg.health_probe_bind_address);
  }
  if (!standalone && f.secure_listen.empty() && cfg.metrics_bind_address && *cfg.metrics_bind_address != "0") {
    f.secure_listen = listen_address(*cfg.metrics_bind_address);
  }
}

/// The address a listener bound: `listen` with its port, which the kernel chose when
/// `listen` said 0, so that the log names where to connect.
std::string bound_address(const std::string& listen, std::uint16_t port) {
  return listen.substr(0, listen.rfind(':') + 1) + std::to_string(port);
}

/// Whether two listen flags name one listener: the same address, and not port 0, which
/// asks for a free port each time.
bool same_listener(const std::string& a, const std::string& b) { return a == b && !a.ends_with(":0"); }

bool is_loopback(const std::string& listen) {
  const std::string host = listen.substr(0, listen.rfind(':'));
  return host == "localhost" || host.starts_with("127.") || host == "[::1]" || host == "::1";
}

/// How many writes a client's users keep in flight to use `shares` times its budget. A
/// write holds its slot for up to three io batch intervals (sent at the io thread's next
/// look, answered, the answer read at a later look), so one budget needs qps x 3 x
/// interval slots. At least 32, at most 512; with no client-side limit, 128.
std::size_t slots_in_flight(double qps, std::chrono::microseconds io_batch_interval, std::size_t shares) {
  constexpr std::size_t kAtLeast = 32;
  constexpr std::size_t kAtMost = 512;
  if (qps <= 0) return 128;  // no client-side limit: the server paces
  const double one_budget = std::ceil(qps * 3.0 * static_cast<double>(io_batch_interval.count()) / 1e6);
  return std::clamp(shares * static_cast<std::size_t>(one_budget), kAtLeast, kAtMost);
}

/// How many writes the controller keeps in flight: a budget's worth for the urgent writes
/// and as many again for the writes nobody waits on (pending explanations, queue status),
/// or they fall behind and pile up in memory (docs/performance.md).
std::size_t writes_in_flight(double qps, std::chrono::microseconds io_batch_interval) {
  return slots_in_flight(qps, io_batch_interval, 2);
}

/// How often the Event client looks at its connections when busy: never more often than
/// every 50 ms. An Event is on nobody's critical path (no admission, eviction or
/// explanation waits for one), so its client trades latency for fewer wake-ups, with as
/// many Events written (docs/performance.md).
std::chrono::microseconds event_io_batch_interval(const Flags& f) {
  constexpr std::chrono::microseconds kAtLeast{50'000};
  return std::max(f.io_batch_interval, kAtLeast);
}

/// The Event writer has no urgent writes: one budget's worth.
std::size_t event_writes_in_flight(double qps, std::chrono::microseconds io_batch_interval) {
  return slots_in_flight(qps, io_batch_interval, 1);
}

actors::ControllerOptions controller_options(const config::KueueConfiguration& cfg, const Flags& f) {
  actors::ControllerOptions o;
  o.engine = cfg.engine;
  o.jobs.manage_jobs_without_queue_name = cfg.manage_jobs_without_queue_name;
  o.jobs.managed_namespaces = cfg.managed_jobs_namespace_selector;
  o.jobs.partial_admission = cfg.engine.partial_admission;
  o.jobs.label_keys_to_copy = cfg.label_keys_to_copy;
  o.jobs.finished_workload_retention = cfg.workload_retention.after_finished;
  o.jobs.deactivated_job_retention = cfg.workload_retention.after_deactivated_by_kueue;
  const auto& w = cfg.wait_for_pods_ready;
  auto& jw = o.jobs.wait_for_pods_ready;
  jw.enabled = w.enabled;
  jw.timeout = w.timeout;
  jw.recovery_timeout = w.recovery_timeout.value_or(w.timeout);
  jw.backoff_limit_count = w.backoff_limit_count;
  jw.backoff_base_seconds = w.backoff_base_seconds;
  jw.backoff_max_seconds = w.backoff_max_seconds;
  o.threads = f.threads;
  o.max_writes_in_flight = writes_in_flight(cfg.client_qps, f.io_batch_interval);
  o.max_normal_writes_in_flight = o.max_writes_in_flight / 2;
  o.max_event_writes_in_flight = event_writes_in_flight(cfg.client_qps, event_io_batch_interval(f));
  o.explanation_interval = f.explanation_interval;
  o.jobs.enabled = std::find(cfg.frameworks.begin(), cfg.frameworks.end(), "batch/job") != cfg.frameworks.end();
  o.jobs.frameworks = cfg.frameworks;
  o.metrics.cluster_queue_resources = cfg.metrics_cluster_queue_resources;
  o.metrics.local_queue_metrics = cfg.metrics_local_queue;
  o.metrics.cohort_metrics = cfg.metrics_cohorts;
  o.metrics.workload_creation_latency = cfg.metrics_workload_creation_latency;
  for (const auto& u : cfg.ignored) o.metrics.ignored_configuration_fields.push_back(u.field);
  o.metrics.fair_sharing = cfg.engine.fair_sharing;
  // One replica and no leader election yet: every series says so.
  o.metrics.replica_role = "standalone";
  return o;
}

/// POD_NAME (or the host name) plus a random suffix: two processes of one pod (a restart)
/// never share an identity, so a new process never renews the old one's Lease.
std::string default_identity() {
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0') return kube::leader::make_identity(pod);
  char host[256] = {};
  return kube::leader::make_identity(gethostname(host, sizeof host - 1) == 0 && host[0] != '\0' ? host : "kueuepp");
}

/// The flag, the Configuration's leaderElection.resourceNamespace, POD_NAMESPACE, the
/// service account's namespace, else the Configuration's namespace.
std::string lease_namespace(const Flags& f, const config::KueueConfiguration& cfg) {
  if (!f.lease_namespace.empty()) return f.lease_namespace;
  if (cfg.leader_election_namespace && !cfg.leader_election_namespace->empty()) return *cfg.leader_election_namespace;
  if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr && *ns != '\0') return ns;
  std::ifstream in("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string ns;
  if (in && std::getline(in, ns) && !ns.empty()) return ns;
  return cfg.ns;
}

actors::ShardingOptions sharding_options(const config::KueueConfiguration& cfg, const Flags& f) {
  actors::ShardingOptions s;
  s.enabled = f.leader_elect.value_or(cfg.leader_elect) || f.shards > 1;
  s.shards = f.shards;
  s.lease_namespace = lease_namespace(f, cfg);
  s.identity = f.identity.empty() ? default_identity() : f.identity;
  s.lease_prefix = cfg.leader_election_id;
  s.lease_duration = cfg.lease_duration;
  s.renew_deadline = cfg.renew_deadline;
  s.retry_period = cfg.retry_period;
  return s;
}

/// The port of an https://HOST:PORT URL (443 without one).
std::string port_of_url(const std::string& url) {
  std::string rest = url.substr(url.find("://") + 3);
  rest = rest.substr(0, rest.find('/'));
  auto close = rest.rfind(']');
  auto colon = rest.rfind(':');
  if (colon == std::string::npos || (close != std::string::npos && colon < close)) return "443";
  return rest.substr(colon + 1);
}

/// The webhook server's options: Kueue's Job policy from the Configuration, where it
/// listens and how it is registered from the flags.
actors::WebhookOptions webhook_options(const config::KueueConfiguration& cfg, const Flags& f, const std::string& ns) {
  actors::WebhookOptions w;
  // The flags first, then the Configuration's webhook section (Kueue's), then kueuepp's
  // defaults.
  const auto& cw = cfg.webhook;
  w.enabled = !f.webhook_listen.empty() || !f.webhook_url_base.empty() || cw.configured;
  if (!w.enabled) return w;
  if (!f.webhook_listen.empty()) {
    w.listen = f.webhook_listen;
  } else if (!f.webhook_url_base.empty()) {
    w.listen = "0.0.0.0:" + port_of_url(f.webhook_url_base);
  } else {
    w.listen = (cw.host.empty() ? std::string("0.0.0.0") : cw.host) + ":" + std::to_string(cw.port);
  }
  w.ns = ns;
  w.service_name = !f.webhook_service.empty() ? f.webhook_service : cw.service_name.value_or(w.service_name);
  w.secret_name = !f.webhook_secret.empty() ? f.webhook_secret : cw.secret_name.value_or(w.secret_name);
  // internalCertManagement.enable: false means the certificates come from webhook.certDir
  // (cert-manager), as in Kueue.
  w.cert_dir = !f.webhook_cert_dir.empty() ? f.webhook_cert_dir : cw.internal_cert_management ? "" : cw.cert_dir;
  w.registration = f.webhook_url_base.empty() ? actors::WebhookOptions::Registration::Service
                                              : actors::WebhookOptions::Registration::Url;
  w.url_base = f.webhook_url_base;
  w.policy.manage_jobs_without_queue_name = cfg.manage_jobs_without_queue_name;
  // Kueue defaults the selector to leave kube-system and its own namespace out.
  w.policy.managed_jobs_namespace_selector =
      cfg.managed_jobs_namespace_selector.value_or(kube::webhook::default_managed_jobs_namespace_selector(cfg.ns));
  w.policy.workload_priority_class_defaulting = cfg.feature_gates.enabled("WorkloadPriorityClassDefaulting");
  w.policy.validate_ray_updates = cfg.feature_gates.enabled("ValidateRayAndSparkJobUpdates");
  w.policy.frameworks = cfg.frameworks;
  return w;
}

/// The visibility API, when --visibility-listen says where; its self-signed certificate
/// names the Service kueuepp-visibility-server of `ns`.
actors::VisibilityOptions visibility_options(const Flags& f, const std::string& ns) {
  actors::VisibilityOptions v;
  v.enabled = !f.visibility_listen.empty();
  if (v.enabled) v.listen = f.visibility_listen;
  for (const std::string& host : {std::string("kueuepp-visibility-server"), "kueuepp-visibility-server." + ns,
                                  "kueuepp-visibility-server." + ns + ".svc"}) {
    v.hosts.push_back(host);
  }
  return v;
}

/// Standalone serves its admission webhooks on a free loopback port and registers them
/// by URL in its own API server, with a CA kept in memory.
actors::WebhookOptions standalone_webhook_options(const config::KueueConfiguration& cfg) {
  Flags f;
  f.webhook_listen = "127.0.0.1:0";
  f.webhook_url_base = "https://127.0.0.1:0";  // the port bound replaces it
  actors::WebhookOptions w = webhook_options(cfg, f, cfg.ns);
  w.listen = "127.0.0.1:0";
  w.url_base.clear();
  w.registration = actors::WebhookOptions::Registration::Url;
  return w;
}

sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

/// /healthz, /readyz, /metrics, /debug/... and the web view (/, /ui/...) of a running controller.
ProbeHandler probe_handler(actors::Controller& controller) {
  return [&controller](const std::string& target, ProbeResponder respond) {
    const std::string path = target.substr(0, target.find('?'));
    if (path == "/healthz" || path == "/livez") {
      respond(200, "text/plain", "ok");
    } else if (path == "/readyz") {
      const std::string why = controller.not_ready_reason();
      respond(why.empty() ? 200 : 503, "text/plain", why.empty() ? "ok" : why);
    } else if (path == "/metrics") {
      controller.scrape_metrics(std::move(respond));
    } else if (path.rfind("/debug/", 0) == 0) {
      controller.introspect(target, std::move(respond));
    } else if (const WebAsset* asset = find_web_asset(path)) {
      respond(200, std::string(asset->content_type), std::string(asset->body));
    } else {
      respond(404, "application/json",
              R"({"error":"unknown path; try / (the web view), /healthz, /readyz, /metrics, /debug/actors, /debug/cohorts, /debug/clusterqueues/NAME, /debug/workloads/NS/NAME"})");
    }
  };
}

/// /healthz, /readyz and /livez only, for the kubelet on a non-loopback address.
ProbeHandler health_handler(actors::Controller& controller) {
  return [all = probe_handler(controller)](const std::string& target, ProbeResponder respond) {
    const std::string path = target.substr(0, target.find('?'));
    if (path == "/healthz" || path == "/livez" || path == "/readyz") {
      all(target, std::move(respond));
    } else {
      respond(404, "text/plain",
              "this address serves the probes only (/healthz, /readyz, /livez); metrics and introspection are on "
              "--secure-listen (HTTPS, authenticated) and --probe-listen (loopback)\n");
    }
  };
}

/// The probe server's options: the web view's event stream carries the cohort trees.
ProbeServerOptions probe_options() {
  ProbeServerOptions o;
  o.streams.push_back(ProbeStream{"/debug/stream", "cohorts", "/debug/cohorts", std::chrono::seconds(1)});
  return o;
}

/// Runs controller (+ probes) until a stop signal; `after_start` gets the controller and
/// the address its probes and introspection are served on.
int run_until_signal(const sigset_t& signals, kube::client::Client& client, const actors::ControllerOptions& options,
                     const Flags& f, const config::KueueConfiguration& cfg,
                     std::function<void(actors::Controller&, const std::string&)> after_start = {}) {
  auto controller = actors::Controller::start(options, client);
  if (!controller) {
    spdlog::error("controller: {}", controller.error().message);
    return 1;
  }
  auto probes = ProbeServer::start(f.probe_listen, probe_handler(**controller), probe_options());
  if (!probes) {
    spdlog::error("--probe-listen {}: {}", f.probe_listen, probes.error().message);
    (*controller)->stop();
    return 1;
  }
  const std::string probe_address = bound_address(f.probe_listen, (*probes)->port());
  spdlog::info("controller running; probes and introspection on http://{}/debug/actors, the web view on http://{}/",
               probe_address, probe_address);
  if (!is_loopback(f.probe_listen)) {
    spdlog::warn("--probe-listen {} is not a loopback address: /metrics and /debug/... (which name every workload and "
                 "namespace) are served there to anyone, without authentication; serve them with --secure-listen and "
                 "the kubelet's probes with --health-listen",
                 f.probe_listen);
  }
  auto stop_all = [&](std::vector<std::unique_ptr<ProbeServer>>& servers) {
    for (auto& s : servers) s->stop();
    (*probes)->stop();
    (*controller)->stop();
  };
  std::vector<std::unique_ptr<ProbeServer>> listeners;
  if (!f.health_listen.empty() && !same_listener(f.health_listen, f.probe_listen)) {
    auto started = ProbeServer::start(f.health_listen, health_handler(**controller));
    if (!started) {
      spdlog::error("--health-listen {}: {}", f.health_listen, started.error().message);
      stop_all(listeners);
      return 1;
    }
    listeners.push_back(std::move(*started));
    spdlog::info("probes (/healthz, /readyz) also on http://{}", bound_address(f.health_listen, listeners.back()->port()));
  }
  if (!f.secure_listen.empty()) {
    SecureListenerOptions secure;
    secure.listen = f.secure_listen;
    secure.cert_dir = f.secure_cert_dir;
    secure.client_ca_file = f.secure_client_ca_file;
    const std::string ns = options.sharding.lease_namespace.empty() ? cfg.ns : options.sharding.lease_namespace;
    secure.hosts = {"kueuepp-metrics", "kueuepp-metrics." + ns, "kueuepp-metrics." + ns + ".svc", "localhost", "127.0.0.1"};
    auto started = start_secure_listener(secure, client, probe_handler(**controller), probe_options());
    if (!started) {
      spdlog::error("{}", started.error().message);
      stop_all(listeners);
      return 1;
    }
    listeners.push_back(std::move(*started));
    spdlog::info("metrics and introspection over HTTPS on {} (port {}), authenticated and authorized by the cluster "
                 "(TokenReview, SubjectAccessReview on the path)",
                 f.secure_listen, listeners.back()->port());
  }
  // Standalone: the Configuration's metrics.bindAddress ("0" turns Kueue's metrics server
  // off) serves plain /metrics as before (in a cluster it is the secure listener's).
  const bool plain_metrics = f.secure_listen.empty() && cfg.metrics_bind_address &&
                             *cfg.metrics_bind_address != "0" &&
                             !same_listener(listen_address(*cfg.metrics_bind_address), f.probe_listen);
  if (plain_metrics) {
    const std::string address = listen_address(*cfg.metrics_bind_address);
    actors::Controller* c = controller->get();
    auto started = ProbeServer::start(address, [c](const std::string& target, ProbeResponder respond) {
      if (target.substr(0, target.find('?')) == "/metrics") {
        c->scrape_metrics(std::move(respond));
      } else {
        respond(404, "text/plain", "this address serves /metrics only");
      }
    });
    if (!started) {
      spdlog::error("metrics.bindAddress {}: {}", address, started.error().message);
      stop_all(listeners);
      return 1;
    }
    listeners.push_back(std::move(*started));
    spdlog::info("metrics also on http://{}/metrics (the Configuration's metrics.bindAddress)",
                 bound_address(address, listeners.back()->port()));
  }
  if (options.webhooks.enabled) spdlog::info("admission webhooks served at {}", (*controller)->webhook_url());
  if (after_start) {
    // Standalone says it runs once it does: its watches listed and its webhooks registered,
    // so that a Job created right after the greeting is held from its first moment.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::string why = (*controller)->not_ready_reason();
    while (!why.empty() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      why = (*controller)->not_ready_reason();
    }
    if (!why.empty()) spdlog::warn("not ready after 30 s: {}", why);
    after_start(**controller, probe_address);
  }
  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("received {}, stopping", signal == SIGINT ? "SIGINT" : "SIGTERM");
  stop_all(listeners);
  return 0;
}

/// The API client: kubeconfig (or in-cluster) configuration, Kueue's QPS and burst.
/// `purpose` names the client in the log ("API", "lease", "event").
/// `concurrent_requests`: how many requests the client's users keep in flight at once;
/// that many connections are kept open between bursts.
Expected<std::unique_ptr<kube::client::Client>> make_client(std::string_view purpose, const std::string& kubeconfig,
                                                            const config::KueueConfiguration& cfg,
                                                            std::size_t concurrent_requests,
                                                            std::chrono::microseconds io_batch_interval,
                                                            const std::string& identity = "") {
  kube::client::ConfigLoadOptions load;
  load.kubeconfig_path = kubeconfig;
  auto client_config = kube::client::load_client_config(load);
  if (!client_config) return fail(client_config.error().message);
  kube::client::ClientOptions options;
  options.qps = cfg.client_qps;
  options.burst = cfg.client_burst;
  // A writer keeps up to max_writes_in_flight requests in flight. With fewer idle
  // connections kept than that, every burst closed the surplus and the next one opened
  // them again (a TCP handshake and teardown per request, on both sides).
  options.max_idle_connections = std::max(options.max_idle_connections, concurrent_requests);
  // At QPS 300 a throttled write goes out every 3.3 ms, each after a timer wake-up of the
  // io thread. Writes nobody waits on (Events, explanations, queue status) go in steps of
  // 10 ms, three or so to a wake-up; admissions keep their exact turn (a workload holds
  // its quota until its admission is written and has run: stepping those too slowed
  // admissions and caused more preemptions, docs/performance.md).
  options.throttle_granularity = std::chrono::milliseconds(10);
  options.io_batch_interval = io_batch_interval;
  // The API budget bounds admission throughput on deep queues: say which one applies.
  spdlog::info("{} client for {}: qps {}, burst {}, up to {} connections kept open, io batch interval {} us",
               purpose, client_config->server, options.qps, options.burst, options.max_idle_connections,
               options.io_batch_interval.count());
  // Nothing in the controller reads field ownership, and it is a large share of every
  // cached object: left out at decoding, as Kueue's cache does.
  options.strip_managed_fields = true;
  // The replica's identity in the User-Agent: API server audit logs say who wrote what.
  if (!identity.empty()) options.user_agent += " (" + identity + ")";
  return kube::client::Client::create(*client_config, options);
}

std::vector<std::string> default_crds() {
  for (const char* dir : {"deploy/crds", "../shared/kueue-crds"}) {
    if (std::filesystem::is_directory(dir)) return {dir};
  }
  return {};
}

}  // namespace

int run_controller(Args args) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    std::fputs(kControllerUsage, stdout);
    return 0;
  }
  Flags f;
  if (auto e = parse(args, f, false); !e.empty()) {
    std::fprintf(stderr, "kueuepp controller: %s\n\n%s", e.c_str(), kControllerUsage);
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(f.log_level));
  auto cfg = load_configuration(f.config_file, f.allow_unsupported);
  if (!cfg) {
    std::fprintf(stderr, "kueuepp controller: %s\n", cfg.error().message.c_str());
    return 2;
  }
  apply_configured_addresses(*cfg, f, false);
  sigset_t signals = block_stop_signals();
  auto options = controller_options(*cfg, f);
  options.share_one_cpu_when_light = f.share_one_cpu_when_light;  // the process is the controller alone
  options.sharding = sharding_options(*cfg, f);
  options.webhooks = webhook_options(*cfg, f, options.sharding.lease_namespace);
  options.visibility = visibility_options(f, options.sharding.lease_namespace);
  auto client = make_client("API", f.kubeconfig, *cfg, options.max_writes_in_flight, f.io_batch_interval, options.sharding.identity);
  if (!client) {
    std::fprintf(stderr, "kueuepp controller: %s\n", client.error().message.c_str());
    return 1;
  }
  // Lease renewals on their own connection and rate limiter (client-go does the same).
  std::unique_ptr<kube::client::Client> lease_client;
  if (options.sharding.enabled) {
    auto made = make_client("lease", f.kubeconfig, *cfg, 1, std::chrono::microseconds(0), options.sharding.identity);
    if (!made) {
      std::fprintf(stderr, "kueuepp controller: %s\n", made.error().message.c_str());
      return 1;
    }
    lease_client = std::move(*made);
    options.sharding.lease_client = lease_client.get();
  }
  // Events on their own connection and rate limiter (client-go's broadcaster has its
  // own clientset too): they never wait for, nor delay, admissions.
  auto event_client = make_client("event", f.kubeconfig, *cfg, options.max_event_writes_in_flight,
                                  event_io_batch_interval(f), options.sharding.identity);
  if (!event_client) {
    std::fprintf(stderr, "kueuepp controller: %s\n", event_client.error().message.c_str());
    return 1;
  }
  options.event_client = event_client->get();
  if (options.sharding.enabled) {
    options.metrics.replica_role = "follower";  // "leader" while it holds a shard
    spdlog::info("leader election on: {} shard(s), Leases {}/{}-shard-*, identity {}", options.sharding.shards,
                 options.sharding.lease_namespace, options.sharding.lease_prefix, options.sharding.identity);
  }
  int rc = run_until_signal(signals, **client, options, f, *cfg);
  if (lease_client) lease_client->shutdown();
  (*event_client)->shutdown();
  (*client)->shutdown();
  return rc;
}

int run_standalone(Args args) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    std::fputs(kStandaloneUsage, stdout);
    return 0;
  }
  Flags f;
  if (auto e = parse(args, f, true); !e.empty()) {
    std::fprintf(stderr, "kueuepp standalone: %s\n\n%s", e.c_str(), kStandaloneUsage);
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(f.log_level));
  auto cfg = load_configuration(f.config_file, f.allow_unsupported);
  if (!cfg) {
    std::fprintf(stderr, "kueuepp standalone: %s\n", cfg.error().message.c_str());
    return 2;
  }
  apply_configured_addresses(*cfg, f, true);
  if (f.server.crd_paths.empty()) f.server.crd_paths = default_crds();
  if (f.server.crd_paths.empty()) {
    std::fprintf(stderr, "kueuepp standalone: no CRDs found (looked for deploy/crds and ../shared/kueue-crds); "
                         "pass --crds DIR\n");
    return 2;
  }
  sigset_t signals = block_stop_signals();
  // Kueue's admission checks (Jobs held suspended from creation, the Kueue kinds
  // validated) come from the controller's webhooks, registered below, as on a real
  // cluster.
  auto server = kube::server::ApiServer::start(f.server);
  if (!server) {
    std::fprintf(stderr, "kueuepp standalone: %s\n", server.error().message.c_str());
    return 1;
  }
  if (auto st = (*server)->write_kubeconfig(f.kubeconfig_out); !st) {
    std::fprintf(stderr, "kueuepp standalone: %s\n", st.error().message.c_str());
    return 1;
  }
  auto options = controller_options(*cfg, f);
  auto client = make_client("API", f.kubeconfig_out, *cfg, options.max_writes_in_flight, f.io_batch_interval);
  if (!client) {
    std::fprintf(stderr, "kueuepp standalone: %s\n", client.error().message.c_str());
    return 1;
  }
  auto event_client = make_client("event", f.kubeconfig_out, *cfg, options.max_event_writes_in_flight,
                                  event_io_batch_interval(f));
  if (!event_client) {
    std::fprintf(stderr, "kueuepp standalone: %s\n", event_client.error().message.c_str());
    return 1;
  }
  auto runner = JobRunner::start(**client, JobRunnerOptions{f.default_duration, f.time_scale});
  auto jobset_runner = JobSetRunner::start(**client);
  auto kubeflow_runner = KubeflowRunner::start(**client, JobRunnerOptions{f.default_duration, f.time_scale});
  auto ray_runner = RayRunner::start(**client, JobRunnerOptions{f.default_duration, f.time_scale});
  auto trainjob_runner = TrainJobRunner::start(**client);
  auto appwrapper_runner = AppWrapperRunner::start(**client);
  options.event_client = event_client->get();
  options.webhooks = standalone_webhook_options(*cfg);
  // The visibility API on loopback (a free port unless --visibility-listen says one),
  // registered in the embedded server below as deploy/visibility/ registers it in a cluster.
  if (f.visibility_listen.empty()) f.visibility_listen = "127.0.0.1:0";
  options.visibility = visibility_options(f, cfg->ns);
  int rc = run_until_signal(signals, **client, options, f, *cfg, [&](actors::Controller& controller, const std::string& probe_address) {
    if (auto st = register_visibility(**client, cfg->ns, controller.visibility_port()); !st) {
      spdlog::info("visibility API on https://127.0.0.1:{}: {}", controller.visibility_port(), st.error().message);
    } else {
      spdlog::info("visibility API on https://127.0.0.1:{}, registered as APIServices v1beta2 and v1beta1",
                   controller.visibility_port());
    }
    std::printf(
        "kueuepp standalone is running: API server %s, kubeconfig %s\n"
        "  kubectl --kubeconfig %s apply -f examples/getting-started/\n"
        "  kubectl --kubeconfig %s create -f examples/getting-started/jobs/sample-job.yaml\n"
        "  kubectl --kubeconfig %s get clusterqueues,localqueues,workloads,jobs -A\n"
        "  curl http://%s/debug/actors\n"
        "  the web view: http://%s/\n",
        (*server)->url().c_str(), f.kubeconfig_out.c_str(), f.kubeconfig_out.c_str(), f.kubeconfig_out.c_str(),
        f.kubeconfig_out.c_str(), probe_address.c_str(), probe_address.c_str());
    std::fflush(stdout);
  });
  appwrapper_runner->stop();
  kubeflow_runner->stop();
  ray_runner->stop();
  trainjob_runner->stop();
  jobset_runner->stop();
  runner->stop();
  (*event_client)->shutdown();
  (*client)->shutdown();
  (*server)->stop();
  return rc;
}

}  // namespace kueuepp::cmd
