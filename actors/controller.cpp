#include "actors/controller.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/coordinator.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <mutex>
#include <limits>
#include <map>
#include <vector>

#include "actors/cohort_tree_actor.hpp"
#include "actors/cpu_placement_actor.hpp"
#include "actors/event_recorder.hpp"
#include "actors/introspection_actor.hpp"
#include "actors/job_actor.hpp"
#include "actors/metrics_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/shard_actor.hpp"
#include "actors/snapshot_actor.hpp"
#include "actors/wake_on_backlog_policy.hpp"
#include "actors/watch_actor.hpp"
#include "actors/watched_kinds.hpp"
#include "actors/webhook_actor.hpp"
#include "actors/webhook_facts.hpp"
#include "actors/write_transport.hpp"
#include "actors/writer_actor.hpp"
#include "kube/webhook/cert_manager.hpp"
#include "kube/webhook/webhook_server.hpp"
#include "kube/auth/caching_token_authenticator.hpp"
#include "kube/auth/kube_reviews.hpp"
#include "kube/visibility/visibility_server.hpp"
#include "kube/webhook/certificates.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

caf::actor_system_config make_config(const ControllerOptions& options) {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", options.threads == 0 ? std::size_t{1} : options.threads);
  // Mostly idle with bursts: one shared queue whose workers sleep rather than poll (work
  // stealing burns CPU while delayed messages are pending, actor-framework#1251), woken
  // only for a backlog (see WakeOnBacklogPolicy).
  cfg.load<caf::scheduler::coordinator<WakeOnBacklogPolicy>>();
  // A hot mailbox must not pin a worker.
  cfg.set("scheduler.max-throughput", std::size_t{300});
  cfg.set("logger.verbosity", caf::atom("quiet"));
  return cfg;
}

}  // namespace

/// The visibility API's queues: the snapshot actor, which hands each question to the tree
/// holding the queue.
class SnapshotQueues final : public kube::visibility::PendingWorkloadsSource {
 public:
  explicit SnapshotQueues(snapshot_actor snapshot) : snapshot_(std::move(snapshot)) {}
  void pending_workloads(kube::visibility::PendingWorkloadsQuery query, Callback done) override {
    caf::anon_send(snapshot_, PendingWorkloadsCall{std::move(query), std::move(done)});
  }
  void what_if(kube::visibility::WhatIfQuery query, WhatIfCallback done) override {
    caf::anon_send(snapshot_, WhatIfCall{std::move(query), std::move(done)});
  }

 private:
  snapshot_actor snapshot_;
};

/// The visibility server's certificate: from files, or self-signed for `hosts`.
Expected<std::pair<std::string, std::string>> visibility_certificate(const VisibilityOptions& v) {
  if (!v.cert_dir.empty()) {
    auto read = [](const std::string& path) -> Expected<std::string> {
      std::ifstream in(path);
      if (!in) return fail("cannot read " + path);
      std::stringstream ss;
      ss << in.rdbuf();
      return ss.str();
    };
    auto cert = read(v.cert_dir + "/tls.crt");
    auto key = read(v.cert_dir + "/tls.key");
    if (!cert || !key) return fail("visibility certificate: " + (cert ? key.error() : cert.error()).message);
    return std::make_pair(std::move(*cert), std::move(*key));
  }
  kube::webhook::CertificateRequest req;
  req.hosts = v.hosts;
  req.now = std::chrono::system_clock::now();
  auto bundle = kube::webhook::generate_bundle(req);
  if (!bundle) return fail("visibility certificate: " + bundle.error().message);
  return std::make_pair(bundle->cert_pem + bundle->ca_cert_pem, std::move(bundle->key_pem));
}

struct Controller::Impl {
  ControllerOptions options;
  kube::client::Client& client;
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  introspection_actor introspection;
  writer_actor writer;
  writer_actor event_writer;  ///< Events' own budget (the event client), or `writer`
  scheduler_actor scheduler;
  snapshot_actor snapshot;
  /// One job actor per enabled kind of job, and the kind it watches.
  std::vector<std::pair<JobKindEntry, job_actor>> jobs;
  event_recorder_actor events;
  metrics_actor metrics;
  std::vector<watch_actor> watches;
  shard_actor shards;  ///< null without sharding
  cpu_placement_actor placement;  ///< null unless share_one_cpu_when_light
  webhook_actor webhook;          ///< null without webhooks
  std::unique_ptr<kube::webhook::WebhookServer> webhook_server;
  std::unique_ptr<kube::webhook::CertManager> cert_manager;
  std::string webhook_url;
  std::shared_ptr<kube::auth::ApiServerReviews> reviews;
  std::shared_ptr<kube::visibility::VisibilityHandler> visibility_handler;
  std::unique_ptr<kube::visibility::VisibilityServer> visibility_server;
  /// The periodic read of the front proxy's trust: its timer is set from the client's
  /// io thread and cancelled at stop, under `mutex`.
  struct TrustRefresh {
    std::mutex mutex;
    bool running = true;
    kube::client::CancelHandle timer;
    std::string last_error;  ///< said once, not at every read
  };
  std::shared_ptr<TrustRefresh> trust = std::make_shared<TrustRefresh>();
  std::shared_ptr<std::atomic<int>> unsynced = std::make_shared<std::atomic<int>>(0);
  /// Why the shard election cannot succeed until an operator acts (ShardOptions::on_blocked),
  /// written by the shard actor, read by readiness probes.
  struct Blocked {
    std::mutex mutex;
    std::string why;
  };
  std::shared_ptr<Blocked> blocked = std::make_shared<Blocked>();
  bool stopped = false;

  Impl(ControllerOptions o, kube::client::Client& c) : options(std::move(o)), client(c), config(make_config(options)) {}

  /// Elections start before the watches: the trees come up inactive and act once their
  /// shard is held (without sharding nothing is sent and every tree acts).
  Status start_sharding() {
    const ShardingOptions& s = options.sharding;
    if (!s.enabled) return {};
    ShardOptions o;
    o.ns = s.lease_namespace;
    o.identity = s.identity;
    o.shard_count = s.shards;
    o.prefix = s.lease_prefix;
    o.lease_duration = s.lease_duration;
    o.renew_deadline = s.renew_deadline;
    o.retry_period = s.retry_period;
    o.writes = writer;
    o.on_blocked = [blocked = blocked](const std::string& why) {
      std::lock_guard lock(blocked->mutex);
      blocked->why = why;
    };
    std::vector<ownership_sink> sinks = {caf::actor_cast<ownership_sink>(writer),
                                         caf::actor_cast<ownership_sink>(snapshot),
                                         caf::actor_cast<ownership_sink>(metrics)};
    if (event_writer != writer) sinks.push_back(caf::actor_cast<ownership_sink>(event_writer));
    auto spawned = spawn_shard_actor(*system, s.lease_client != nullptr ? *s.lease_client : client, std::move(o),
                                     std::move(sinks), introspection);
    if (!spawned) return fail("leader election: " + spawned.error().message);
    shards = *spawned;
    return {};
  }

  Status start() {
    system = std::make_unique<caf::actor_system>(config);
    introspection = spawn_introspection(*system);
    const bool sharded = options.sharding.enabled;
    WriterOptions writer_options{options.max_writes_in_flight, sharded};
    writer_options.max_normal_in_flight = options.max_normal_writes_in_flight;
    writer_options.normal_writes_in_background = options.normal_writes_in_background;
    writer = spawn_writer(*system, client_write_transport(client), writer_options);
    caf::anon_send(introspection, ActorRegistered{"writer", "writer", writer.address(),
                                                  caf::actor_cast<caf::strong_actor_ptr>(writer)});
    scheduler = spawn_scheduler(*system, SchedulerOptions{options.batching_window, options.clock, {}}, introspection);
    event_writer = writer;
    if (options.event_client != nullptr) {
      event_writer = spawn_writer(*system, client_write_transport(*options.event_client),
                                  WriterOptions{options.max_event_writes_in_flight, sharded});
      caf::anon_send(introspection, ActorRegistered{"writer", "events", event_writer.address(),
                                                    caf::actor_cast<caf::strong_actor_ptr>(event_writer)});
    }
    metrics = spawn_metrics(*system, options.metrics, introspection);
    events = spawn_event_recorder(*system, event_writer, introspection, options.clock);
    CohortTreeOptions tree_options;
    tree_options.engine = options.engine;
    tree_options.status_interval = options.status_interval;
    tree_options.explanation_interval = options.explanation_interval;
    tree_options.clock = options.clock;
    start_job_actors(sharded);
    std::vector<job_actor> job_actors;
    for (const auto& [kind, actor] : jobs) job_actors.push_back(actor);
    snapshot = spawn_snapshot(*system, tree_options, CohortTreeLinks{writer, scheduler, introspection, metrics, events},
                              std::move(job_actors), sharded ? std::optional<std::uint32_t>(options.sharding.shards) : std::nullopt);
    if (auto st = start_sharding(); !st) return st;
    start_cpu_placement();
    if (auto st = start_webhooks(); !st) return st;
    if (auto st = start_visibility(); !st) return st;

    std::vector<ObjectKind> kinds = {ObjectKind::Namespace,      ObjectKind::PriorityClass,
                                     ObjectKind::WorkloadPriorityClass, ObjectKind::ResourceFlavor,
                                     ObjectKind::AdmissionCheck, ObjectKind::Cohort,
                                     ObjectKind::ClusterQueue,   ObjectKind::LocalQueue,
                                     ObjectKind::Workload};
    object_sink snapshot_sink = caf::actor_cast<object_sink>(snapshot);
    auto watch = [&](ObjectKind kind, std::vector<object_sink> sinks, bool holds_readiness = true) {
      // A kind of job whose CRD is not installed yet is waited for (its watch retries
      // with backoff) without holding the controller's readiness: Kueue does the same.
      if (holds_readiness) {
        unsynced->fetch_add(1);
        auto counter = unsynced;
        watches.push_back(spawn_watch(*system, client, kind, std::move(sinks), introspection,
                                      [counter] { counter->fetch_sub(1); }));
      } else {
        watches.push_back(spawn_watch(*system, client, kind, std::move(sinks), introspection));
      }
    };
    for (ObjectKind kind : kinds) {
      std::vector<object_sink> sinks;
      sinks.push_back(snapshot_sink);
      // The job actor needs Workloads (admission, eviction), flavors (node labels,
      // tolerations to inject), queues and priority classes (Workload creation) and, to
      // select the managed ones, Namespaces.
      if (kind == ObjectKind::Workload || kind == ObjectKind::ResourceFlavor || kind == ObjectKind::LocalQueue ||
          kind == ObjectKind::WorkloadPriorityClass || kind == ObjectKind::PriorityClass ||
          (kind == ObjectKind::Namespace && options.jobs.managed_namespaces)) {
        for (const auto& [job_kind, actor] : jobs) sinks.push_back(caf::actor_cast<object_sink>(actor));
      }
      // The webhooks answer from the same watches (every replica watches them).
      if (webhook && WebhookFacts::wants(kind)) sinks.push_back(caf::actor_cast<object_sink>(webhook));
      watch(kind, std::move(sinks));
    }
    // What a kind's adapter reads besides its jobs (a TrainJob's runtimes): one watch per
    // kind for every job actor that reads it, waited for as the kinds of job are.
    std::map<ObjectKind, std::vector<object_sink>> related;
    for (const auto& [job_kind, actor] : jobs) {
      watch(job_kind.tag, {caf::actor_cast<object_sink>(actor)}, !job_kind.custom_resource);
      for (ObjectKind kind : related_kinds(job_kind.tag)) related[kind].push_back(caf::actor_cast<object_sink>(actor));
    }
    for (auto& [kind, sinks] : related) watch(kind, std::move(sinks), false);
    return {};
  }

  /// A job actor for each enabled kind of job (batch/v1 Jobs when `enabled`).
  void start_job_actors(bool sharded) {
    const JobLinks links{writer, introspection, events, metrics};
    for (const JobKindEntry& kind : job_kinds()) {
      const bool on = kind.tag == ObjectKind::Job
                          ? options.jobs.enabled
                          : std::find(options.jobs.frameworks.begin(), options.jobs.frameworks.end(), kind.framework) !=
                                options.jobs.frameworks.end();
      if (!on) continue;
      jobs.emplace_back(kind, spawn_job_actor(*system, options.jobs, links, options.clock, sharded,
                                              JobKind{&kind.integration(), kind.tag}));
    }
  }

  /// The webhook actor, the HTTPS server handing it the requests, and the certificates.
  Status start_webhooks() {
    const WebhookOptions& w = options.webhooks;
    if (!w.enabled) return {};
    namespace wh = kube::webhook;
    webhook = spawn_webhook_actor(*system, w.policy, introspection);
    wh::WebhookServerOptions server_options;
    server_options.listen = w.listen;
    server_options.threads = w.threads;
    auto actor = webhook;
    auto server = wh::WebhookServer::start(
        server_options, [actor](const wh::WebhookSpec& spec, wh::AdmissionRequest request, wh::AdmissionReply reply) {
          caf::anon_send(actor, AdmissionCall{spec.kind, std::move(request), std::move(reply)});
        });
    if (!server) return fail(server.error().message);
    webhook_server = std::move(*server);
    std::string address = webhook_server->address();
    if (address.rfind("0.0.0.0:", 0) == 0) address = "127.0.0.1:" + address.substr(8);
    if (address.rfind("[::]:", 0) == 0) address = "127.0.0.1:" + address.substr(5);
    webhook_url = "https://" + address;

    wh::CertManagerOptions c;
    c.cert_dir = w.cert_dir;
    c.secret_namespace = w.ns;
    c.secret_name = w.secret_name;
    c.check_interval = w.cert_check_interval;
    c.target.service_name = w.service_name;
    c.target.service_namespace = w.ns;
    c.target.excluded_namespaces = {"kube-system", w.ns};
    c.target.url_base = w.url_base.empty() ? webhook_url : w.url_base;
    switch (w.registration) {
      case WebhookOptions::Registration::Service: c.registration = wh::Registration::CaBundle; break;
      case WebhookOptions::Registration::Url: c.registration = wh::Registration::Url; break;
      case WebhookOptions::Registration::None: c.registration = wh::Registration::None; break;
    }
    if (!w.cert_dir.empty()) {
      c.source = wh::CertificateSource::Files;
    } else if (w.registration == WebhookOptions::Registration::Service) {
      c.source = wh::CertificateSource::Secret;
      for (const std::string& suffix : {std::string(), "." + w.ns, "." + w.ns + ".svc", "." + w.ns + ".svc.cluster.local"}) {
        c.hosts.push_back(w.service_name + suffix);
      }
    } else {
      c.source = wh::CertificateSource::Generated;
      c.hosts = {"127.0.0.1", "localhost"};
      const std::string base = c.target.url_base;
      if (auto start = base.find("://"); start != std::string::npos) {
        std::string host = base.substr(start + 3);
        host = host.substr(0, host.find('/'));
        if (!host.empty() && host.front() == '[') {
          host = host.substr(1, host.find(']') - 1);
        } else {
          host = host.substr(0, host.rfind(':'));
        }
        if (!host.empty() && host != "127.0.0.1" && host != "localhost") c.hosts.push_back(host);
      }
    }
    auto manager = wh::CertManager::start(std::move(c), &client, *webhook_server);
    if (!manager) return fail("webhook certificates: " + manager.error().message);
    cert_manager = std::move(*manager);
    spdlog::info("webhook server listening on {} ({})", webhook_server->address(), webhook_url);
    return {};
  }

  /// The visibility API: the handler (reviews through the controller's client, pages
  /// from the snapshot actor), its HTTPS server, and the front proxy's trust, read now
  /// and again every trust_refresh.
  Status start_visibility() {
    const VisibilityOptions& v = options.visibility;
    if (!v.enabled) return {};
    namespace vis = kube::visibility;
    reviews = std::make_shared<kube::auth::ApiServerReviews>(client);
    std::shared_ptr<kube::auth::Authorizer> asked = v.authorizer ? v.authorizer : std::shared_ptr<kube::auth::Authorizer>(reviews);
    auto authorizer = std::make_shared<kube::auth::CachingAuthorizer>(std::move(asked), v.authorization_ttl);
    auto tokens = std::make_shared<kube::auth::CachingTokenAuthenticator>(reviews, v.authorization_ttl);
    visibility_handler = std::make_shared<vis::VisibilityHandler>(std::make_shared<SnapshotQueues>(snapshot),
                                                                  std::move(authorizer), std::move(tokens));
    vis::VisibilityServerOptions server_options;
    server_options.listen = v.listen;
    auto server = vis::VisibilityServer::start(
        server_options, [handler = visibility_handler](vis::IncomingRequest request, vis::Reply reply) {
          handler->handle(std::move(request), std::move(reply));
        });
    if (!server) return fail("visibility server: " + server.error().message);
    auto cert = visibility_certificate(v);
    if (!cert) return unexpected(cert.error());
    if (auto st = (*server)->set_certificate(cert->first, cert->second); !st) {
      return fail("visibility server: " + st.error().message);
    }
    visibility_server = std::move(*server);
    read_trust();
    spdlog::info("visibility API listening on {} (port {})", v.listen, visibility_server->port());
    return {};
  }

  void read_trust() { read_trust(client, visibility_handler, trust, options.visibility.trust_refresh); }

  static void read_trust(kube::client::Client& client, std::weak_ptr<kube::visibility::VisibilityHandler> weak,
                         std::shared_ptr<TrustRefresh> trust, std::chrono::milliseconds every) {
    kube::auth::read_request_header_config(client, [weak, trust](Expected<kube::auth::RequestHeaderConfig> c) {
      auto handler = weak.lock();
      if (!handler) return;
      std::lock_guard lock(trust->mutex);
      if (!c) {
        if (c.error().message != trust->last_error) {
          spdlog::warn("visibility: no front proxy is trusted yet (bearer tokens still are): {}", c.error().message);
        }
        trust->last_error = c.error().message;
        return;  // the last trust read stays
      }
      if (!trust->last_error.empty()) spdlog::info("visibility: the front proxy's trust is read");
      trust->last_error.clear();
      handler->set_request_header_config(std::move(*c));
    });
    std::lock_guard lock(trust->mutex);
    if (!trust->running) return;
    trust->timer = client.after(every, [&client, weak, trust, every] { read_trust(client, weak, trust, every); });
  }

  void stop_visibility() {
    {
      std::lock_guard lock(trust->mutex);
      trust->running = false;
      trust->timer.cancel();
    }
    if (visibility_server) visibility_server->stop();
    visibility_server.reset();
  }

  void stop_webhooks() {
    if (cert_manager) cert_manager->stop();
    if (webhook_server) webhook_server->stop();
    cert_manager.reset();
    webhook_server.reset();
    if (webhook) caf::anon_send_exit(webhook, caf::exit_reason::user_shutdown);
    webhook = nullptr;
  }

  void start_cpu_placement() {
    if (!options.share_one_cpu_when_light) return;
    auto system_side = linux_cpu_placement();
    if (!system_side) {
      spdlog::warn("cpu placement: {}; the controller's threads stay where the kernel puts them",
                   system_side.error().message);
      return;
    }
    placement = spawn_cpu_placement(*system, std::move(*system_side), CpuPlacementActorOptions{}, introspection);
  }

  /// Gives the shards up before anything else stops: the writer and the trees hear
  /// "nothing held" (no new writes), the writes already in flight complete (bounded by
  /// half the renew deadline), and only then are the Leases released, so no write of this
  /// replica lands after another replica took a tree over.
  void stop_sharding() {
    if (!shards) return;
    caf::scoped_actor self{*system};
    ShardOwnership nothing;
    nothing.shard_count = options.sharding.shards;
    nothing.version = std::numeric_limits<std::uint64_t>::max();  // final: later ones are late
    if (event_writer != writer) self->send(caf::actor_cast<ownership_sink>(event_writer), nothing);
    for (const auto& sink : {caf::actor_cast<ownership_sink>(writer), caf::actor_cast<ownership_sink>(snapshot),
                             caf::actor_cast<ownership_sink>(metrics)}) {
      self->send(sink, nothing);
    }
    self->request(writer, options.sharding.renew_deadline / 2, DrainWrites{})
        .receive([](const WritesDrained& d) { spdlog::debug("stop: {} write(s) in flight completed", d.waited_for); },
                 [](caf::error& err) {
                   spdlog::warn("stop: writes still in flight when the Leases are released: {}", caf::to_string(err));
                 });
    self->request(shards, caf::infinite, ShardStop{})
        .receive(
            [](const ShardStopped& r) {
              spdlog::info("leader election stopped: {} shard Lease(s) released, {} left to expire{}", r.released,
                           r.failed, r.member_deleted ? "" : "; member Lease left to expire");
            },
            [](caf::error& err) { spdlog::warn("leader election did not stop cleanly: {}", caf::to_string(err)); });
    caf::anon_send_exit(shards, caf::exit_reason::user_shutdown);
    shards = nullptr;
  }

  void stop() {
    if (stopped) return;
    stopped = true;
    stop_webhooks();  // the API server's calls fail over to the other replicas at once
    stop_visibility();
    stop_sharding();
    // Watches first (no new events), then the actors, then the system joins them.
    for (auto& w : watches) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
    for (const auto& [kind, actor] : jobs) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(snapshot, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(scheduler, caf::exit_reason::user_shutdown);
    if (placement) caf::anon_send_exit(placement, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(events, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(metrics, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(writer, caf::exit_reason::user_shutdown);
    if (event_writer != writer) caf::anon_send_exit(event_writer, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(introspection, caf::exit_reason::user_shutdown);
    watches.clear();
    jobs.clear();
    snapshot = nullptr;
    scheduler = nullptr;
    events = nullptr;
    metrics = nullptr;
    writer = nullptr;
    event_writer = nullptr;
    introspection = nullptr;
    system.reset();  // waits for every actor to finish
  }
};

Controller::Controller(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Controller::~Controller() { stop(); }

Expected<std::unique_ptr<Controller>> Controller::start(ControllerOptions options, kube::client::Client& client) {
  auto impl = std::make_unique<Impl>(std::move(options), client);
  if (auto st = impl->start(); !st) {
    impl->stop();
    return fail(st.error().message);
  }
  return std::unique_ptr<Controller>(new Controller(std::move(impl)));
}

bool Controller::synced() const { return impl_->unsynced->load() == 0; }

std::string Controller::not_ready_reason() const {
  {
    std::lock_guard lock(impl_->blocked->mutex);
    if (!impl_->blocked->why.empty()) return impl_->blocked->why;
  }
  if (impl_->cert_manager) {
    if (std::string why = impl_->cert_manager->not_ready_reason(); !why.empty()) return "webhook server: " + why;
  }
  return synced() ? std::string() : std::string("watches are still syncing");
}

std::string Controller::webhook_url() const { return impl_->webhook_url; }

std::uint16_t Controller::visibility_port() const {
  return impl_->visibility_server ? impl_->visibility_server->port() : 0;
}

std::string Controller::webhook_ca_bundle() const {
  return impl_->cert_manager ? impl_->cert_manager->ca_bundle() : std::string();
}

void Controller::introspect(std::string path, Responder respond) {
  if (impl_->stopped || !impl_->introspection) {
    respond(503, "application/json", R"({"error":"the controller is stopping"})");
    return;
  }
  caf::anon_send(impl_->introspection, HttpQuery{std::move(path), std::move(respond)});
}

void Controller::scrape_metrics(Responder respond) {
  if (impl_->stopped || !impl_->metrics) {
    respond(503, "text/plain", "the controller is stopping");
    return;
  }
  caf::anon_send(impl_->metrics, ScrapeMetrics{[respond = std::move(respond)](std::string type, std::string body) {
                   respond(200, std::move(type), std::move(body));
                 }});
}

void Controller::stop() {
  if (impl_) impl_->stop();
}

}  // namespace kueuepp::actors
