#pragma once

// The controller: the actor system wired together. Watches feed the snapshot actor
// (and the job actor); the snapshot actor feeds one cohort-tree actor per tree; the
// scheduler paces their rounds; the writer carries out their decisions; ClusterQueue
// actors write queue status; the introspection actor answers the debug endpoint.
// CAF stays behind this interface (pimpl), so commands and tests include it cheaply.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>
#include <string>

#include "core/engine/engine_config.hpp"
#include "core/expected.hpp"
#include "core/model/time.hpp"
#include "core/metrics/kueue_metrics.hpp"
#include "core/model/labels.hpp"
#include "kube/auth/delegated_auth.hpp"
#include "kube/webhook/job_webhook.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::actors {

struct JobIntegrationOptions {
  /// Manage batch/v1 Jobs at all (Kueue's integrations.frameworks includes batch/job).
  bool enabled = true;
  /// Kueue's integrations.frameworks: every kind of job managed ("batch/job" when
  /// `enabled`, "jobset.x-k8s.io/jobset"), each with its watch and job actor. A child
  /// owned by one of them (a JobSet's Job) is never queued itself.
  std::vector<std::string> frameworks = {"batch/job"};
  /// manageJobsWithoutQueueName: Jobs without the queue-name label are managed too:
  /// queued in the namespace's LocalQueue named "default" when there is one, else held
  /// suspended with a Workload that waits for a queue.
  bool manage_jobs_without_queue_name = false;
  /// managedJobsNamespaceSelector (Kueue's ManagedJobsNamespaceSelectorAlwaysRespected):
  /// only Jobs in the namespaces it selects are managed, labelled or not, and none in a
  /// namespace not seen yet. Absent: every namespace.
  std::optional<core::LabelSelector> managed_namespaces;
  /// waitForPodsReady: the PodsReady condition is kept on admitted Workloads and, past
  /// the timeout, a Workload whose pods are not ready is evicted and requeued with backoff.
  struct WaitForPodsReady {
    bool enabled = false;
    std::chrono::seconds timeout{30 * 60};
    std::chrono::seconds recovery_timeout{30 * 60};  ///< 0: no recovery deadline
    std::optional<std::int32_t> backoff_limit_count;
    std::int32_t backoff_base_seconds = 60;
    std::int32_t backoff_max_seconds = 3600;
  } wait_for_pods_ready;
  /// PartialAdmission gate: a Job's min-parallelism annotation becomes its pod set's
  /// minCount.
  bool partial_admission = true;
  /// Configuration labelKeysToCopy: Job labels copied onto its Workload.
  std::vector<std::string> label_keys_to_copy;
  /// objectRetentionPolicies.workloads: a finished Workload is deleted this long after it
  /// finished; the Job of a Workload Kueue deactivated, this long after the eviction.
  /// Absent: kept.
  std::optional<std::chrono::milliseconds> finished_workload_retention;
  std::optional<std::chrono::milliseconds> deactivated_job_retention;
};

/// Leader election and horizontal sharding by cohort: every cohort tree belongs to one
/// of `shards` shards (messages::shard_of_root), each with its own Lease; replicas spread
/// the shards among themselves and act only on the trees of the shards they hold.
struct ShardingOptions {
  /// Off: this replica acts on every tree at once (standalone, single-replica tests).
  bool enabled = false;
  std::uint32_t shards = 1;
  std::string lease_namespace = "kueuepp-system";
  /// This replica's name in the Leases (`<pod name>_<random hex>` by convention).
  std::string identity;
  /// Shard i's Lease is `<prefix>-shard-<i>`.
  std::string lease_prefix = "kueuepp";
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  /// The client for the Leases: a separate one (its own rate limiter) keeps renewals
  /// from waiting behind the controller's writes. Null: the controller's client.
  kube::client::Client* lease_client = nullptr;
};

/// The admission webhook server (kube/webhook): served by every replica from its watch
/// caches, with certificates kueuepp manages (or files), registered by Service (the
/// configurations deploy/ ships get their caBundle) or by URL.
struct WebhookOptions {
  bool enabled = false;
  /// ADDR:PORT; port 0 picks a free one (webhook_url() says which).
  std::string listen = "0.0.0.0:9443";
  /// kueuepp's namespace: the Secret, the Service, and left out of the webhooks.
  std::string ns = "kueuepp-system";
  std::string service_name = "kueuepp-webhook-service";
  std::string secret_name = "kueuepp-webhook-server-cert";
  /// tls.crt, tls.key (and ca.crt) from here (cert-manager); empty: kueuepp makes them
  /// (in the Secret when registered by Service, in memory when by URL or not at all).
  std::string cert_dir;
  enum class Registration : std::uint8_t {
    Service,  ///< the configurations of deploy/ (by Service) get their caBundle
    Url,      ///< the configurations are written by URL (a controller outside the cluster)
    None,     ///< somebody else registers them (webhook_url(), webhook_ca_bundle())
  } registration = Registration::Service;
  /// Url: "https://HOST:PORT"; empty: https:// and the address listened on (127.0.0.1
  /// when listening on every address).
  std::string url_base;
  std::size_t threads = 1;
  /// How often the certificates (Secret or files) are read again.
  std::chrono::milliseconds cert_check_interval{60'000};
  kube::webhook::JobWebhookPolicy policy;
};

/// Kueue's visibility API (visibility.kueue.x-k8s.io, kube/visibility): served by every
/// replica from its own watches, over HTTPS, as an aggregated API whose authentication
/// and authorization are delegated to the cluster (front-proxy certificate, TokenReview,
/// SubjectAccessReview).
struct VisibilityOptions {
  bool enabled = false;
  /// ADDR:PORT. Kueue's visibility server binds 8082, kueuepp's probe port: 8083.
  std::string listen = "0.0.0.0:8083";
  /// tls.crt and tls.key from here; empty: a self-signed certificate made at start
  /// (Kueue's APIServices, and deploy/'s, say insecureSkipTLSVerify).
  std::string cert_dir;
  /// Names the self-signed certificate is made for (the Service's DNS names).
  std::vector<std::string> hosts{"localhost", "127.0.0.1"};
  /// How long a SubjectAccessReview's or a TokenReview's answer is kept (the delegating
  /// authorizer's and authenticator's default).
  std::chrono::milliseconds authorization_ttl{10'000};
  /// How often ConfigMap kube-system/extension-apiserver-authentication is read again.
  std::chrono::milliseconds trust_refresh{60'000};
  /// Tests: answers authorization instead of SubjectAccessReviews (null: the API server's).
  std::shared_ptr<kube::auth::Authorizer> authorizer;
};

struct ControllerOptions {
  core::EngineConfig engine;
  JobIntegrationOptions jobs;
  /// CAF worker threads (cohort trees run concurrently on them).
  std::size_t threads = 2;
  /// Writes in flight at once (the client's QPS/burst limiter paces them further).
  std::size_t max_writes_in_flight = 16;
  /// Of those, how many the controller's writes not urgent may hold (pending
  /// explanations, queue status): see WriterOptions::max_normal_in_flight.
  std::size_t max_normal_writes_in_flight = 3;
  /// The Event writer's (with an Event client of its own): its client looks at its
  /// connections less often than the API client, so each write holds its slot longer.
  std::size_t max_event_writes_in_flight = 16;
  /// Those take only the budget urgent writes leave (WriterOptions::normal_writes_in_background).
  bool normal_writes_in_background = true;
  /// How long the scheduler lets changes gather before a round (SchedulerOptions). None:
  /// a round is asked for with the scheduler's next message, so it still comes after the
  /// changes already queued, and a round in progress gathers those behind it. A window
  /// costs a timer per round, each a wake-up or two of CAF's clock thread.
  std::chrono::milliseconds batching_window{0};
  std::chrono::milliseconds status_interval{1000};
  /// How often a pending workload's explanation is rewritten at most (CohortTreeOptions;
  /// 0: every change, as Kueue does).
  std::chrono::milliseconds explanation_interval{0};
  ShardingOptions sharding;
  /// The client for Events: a separate one (its own connection and rate limiter), as
  /// client-go's event broadcaster writes through its own clientset, so Events never
  /// spend the budget admissions and status need. Null: the controller's client.
  kube::client::Client* event_client = nullptr;
  /// Kueue's metrics (replica role, optional families) for /metrics.
  metrics::KueueMetricsOptions metrics;
  /// Let the controller's threads share one CPU while the controller needs less than
  /// half of one (actors/cpu_placement_policy.hpp: on Kueue's baseline shape a tenth less
  /// CPU time and sooner admissions), spreading them again when it needs more or that
  /// CPU is busy. It sets the CPUs of every thread of the process, so only `kueuepp
  /// controller` turns it on (`--cpu-placement auto`).
  bool share_one_cpu_when_light = false;
  /// Tests inject a clock; production uses the system clock.
  std::function<core::Time()> clock;
  WebhookOptions webhooks;
  VisibilityOptions visibility;
};

/// Answers one HTTP request (status, content type, body); callable from any thread.
using Responder = std::function<void(int status, std::string content_type, std::string body)>;

class Controller {
 public:
  /// Spawns the actors and starts the watches. `client` must outlive the controller.
  static Expected<std::unique_ptr<Controller>> start(ControllerOptions options, kube::client::Client& client);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  /// True once every watch delivered its first complete list.
  bool synced() const;
  /// Why the controller is not ready ("" when it is): its watches still syncing, or its
  /// shard election blocked until an operator acts (what to create or which flag to pass).
  std::string not_ready_reason() const;
  /// The webhook server's base URL ("https://127.0.0.1:9443"), "" without webhooks.
  std::string webhook_url() const;
  /// The PEM CA bundle that verifies the webhook server ("" until known).
  std::string webhook_ca_bundle() const;
  /// The visibility server's port (0 without it).
  std::uint16_t visibility_port() const;
  /// Answers a GET of /debug/... (see introspection_actor.hpp) asynchronously.
  void introspect(std::string path, Responder respond);
  /// Answers a GET of /metrics (Prometheus text format) asynchronously.
  void scrape_metrics(Responder respond);
  /// Stops watches, then the actors; waits for them. Idempotent.
  void stop();

  struct Impl;

 private:
  explicit Controller(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuepp::actors
