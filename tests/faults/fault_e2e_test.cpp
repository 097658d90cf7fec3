// End to end under faults: the controller runs in-process against the embedded API
// server through the fault proxy, while a stream of Jobs contends for 15 ClusterQueues in
// 5 cohorts, and an invariant checker (invariant_checker.hpp) polls the Jobs and
// Workloads through a client of its own, straight to the server. Nothing is read from
// the controller's memory: what is checked is what a user of the cluster would see.
//
// Each test runs one seeded fault plan, active during a window at the start, then quiet;
// it fails if the checker saw a cohort over its quota (preemption victims aside, see
// invariant_checker.hpp), a Job admitted twice, a Job with more or fewer than one
// Workload, a Job running without an admission for longer than a grace period, a Job
// started while none of its Workloads held quota (on watched versions), or if,
// once the faults stopped, some Job does not complete or some queue status keeps
// counting workloads. Each prints one line,
//   FAULT-E2E fault=... requests=... faults=... admissions=... evictions=... violations=...
// so that a table can be built from the log (faults: the requests the proxy broke;
// victim_overlap: the most a cohort held beyond its quota while victims stopped).
//
// The Jobs run (and complete) by the standalone job runner, over a client of its own
// straight to the server: only the controller's requests meet the faults.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "actors/controller.hpp"
#include "cmd/standalone/job_runner.hpp"
#include "config/kueue_configuration.hpp"
#include "kube/apiserver/server/api_server.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/client/informer.hpp"
#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"
#include "tests/faults/fault_proxy.hpp"
#include "tests/faults/invariant_checker.hpp"
#include "tests/support/source_tree.hpp"

namespace kueuepp::faults {
namespace {

using test_support::source_dir;
using test_support::read_file;

namespace fs = std::filesystem;
namespace kc = kube::client;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kNamespace = "faults";
constexpr int kCohorts = 5;
constexpr int kQueuesPerCohort = 3;
constexpr int kNominalCpu = 4;
constexpr int kJobs = 90;
/// The Jobs are created over this long, from the start of the fault window.
constexpr auto kStreamDuration = 3000ms;
/// Once the faults stopped, every Job completes and every Workload finishes within this.
constexpr auto kSettleBound = 60s;
/// Once everything finished, the queues' status stops counting workloads within this
/// (the controller publishes queue status once a second).
constexpr auto kQueueStatusBound = 5s;
constexpr auto kPollPeriod = 150ms;

json::value yaml(std::string_view text) {
  auto doc = json::parse_yaml(text);
  EXPECT_TRUE(doc) << (doc ? "" : doc.error().message);
  return doc ? std::move(*doc) : json::value();
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string cq_name(int cohort, int queue) { return fmt::format("cq-{}-{}", cohort, queue); }
std::string lq_name(int cohort, int queue) { return fmt::format("lq-{}-{}", cohort, queue); }

/// One Job of the stream. The same for every test: only the faults differ.
struct JobSpec {
  std::string name;
  std::string queue;
  int cpu = 1;
  int sleep_s = 1;
  bool high = false;
};

/// Contended on purpose: each cohort gets 18 Jobs of 1-3 CPUs for 12 shared CPUs, its
/// first ClusterQueue most of them (it borrows, the others reclaim), and a quarter of
/// them high priority (they preempt within their ClusterQueue).
std::vector<JobSpec> job_stream() {
  std::mt19937 rng(20261129);
  std::vector<JobSpec> out;
  for (int i = 0; i < kJobs; ++i) {
    JobSpec j;
    j.name = fmt::format("job-{:03}", i);
    const int cohort = i % kCohorts;
    const int pick = static_cast<int>(rng() % 10);
    const int queue = pick < 5 ? 0 : pick < 8 ? 1 : 2;
    j.queue = lq_name(cohort, queue);
    j.cpu = 1 + static_cast<int>(rng() % 3);
    j.sleep_s = 1 + static_cast<int>(rng() % 3);
    j.high = rng() % 4 == 0;
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<QueueQuota> topology() {
  std::vector<QueueQuota> out;
  for (int c = 0; c < kCohorts; ++c) {
    for (int q = 0; q < kQueuesPerCohort; ++q) {
      out.push_back(QueueQuota{cq_name(c, q), fmt::format("cohort-{}", c), kNominalCpu * 1000, {}, {}});
    }
  }
  return out;
}

/// Polls the Jobs and Workloads straight from the server and feeds the checker.
class InvariantPoller {
 public:
  InvariantPoller(kc::Client& client, InvariantChecker& checker) : api_(client), checker_(checker) {
    thread_ = std::thread([this] { loop(); });
  }
  ~InvariantPoller() { stop(); }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  /// Runs `fn` with the checker, between two polls.
  template <typename F>
  auto with_checker(F&& fn) {
    std::lock_guard lock(checker_mutex_);
    return fn(checker_);
  }

  std::uint64_t list_failures() const { return list_failures_; }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      poll();
      lock.lock();
      wake_.wait_for(lock, kPollPeriod, [this] { return stopping_; });
    }
  }

  void poll() {
    // Jobs first: a Job seen running is judged against Workloads listed after it, so a
    // stop that completes in between is seen whole (and the grace covers the rest).
    auto jobs = api_.list(kc::resources::kJob, kNamespace);
    auto workloads = api_.list(kc::resources::kWorkload, kNamespace);
    if (!jobs || !workloads) {
      ++list_failures_;
      return;
    }
    std::lock_guard lock(checker_mutex_);
    checker_.observe(jobs->items, workloads->items);
  }

  kc::BlockingClient api_;
  InvariantChecker& checker_;
  std::mutex checker_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<std::uint64_t> list_failures_{0};
  std::thread thread_;
};

/// Every Job and Workload version as the API server tells it (watches of a client of its
/// own): the Jobs' starts are judged on them (starts_without_quota), and a violation is
/// shown with the Workload changes that led to it.
class History {
 public:
  History(kc::Client& client, Clock::time_point start) : start_(start) {
    informer_ = kc::Informer::start(client, kc::resources::kWorkload, {}, [this](kc::InformerEvent e) {
      using Type = kc::InformerEvent::Type;
      if (e.type == Type::Relisted) {
        for (const auto& wl : e.items) record("listed", wl, false);
      } else {
        record(e.type == Type::Deleted ? "deleted" : "changed", e.object, e.type == Type::Deleted);
      }
    });
    jobs_informer_ = kc::Informer::start(client, kc::resources::kJob, {}, [this](kc::InformerEvent e) {
      using Type = kc::InformerEvent::Type;
      std::lock_guard lock(mutex_);
      if (e.type == Type::Relisted) {
        for (auto& job : e.items) keep(std::move(job), false);
      } else {
        keep(std::move(e.object), e.type == Type::Deleted);
      }
    });
  }
  ~History() { stop(); }
  void stop() {
    if (informer_) informer_->stop();
    if (jobs_informer_) jobs_informer_->stop();
  }

  /// Every version seen of the Jobs and Workloads.
  std::vector<ObjectVersion> versions() const {
    std::lock_guard lock(mutex_);
    return versions_;
  }

  /// The changes of the Workloads of `cohort`'s LocalQueues from `from` to `to` (since the
  /// start), one a line.
  std::string of_cohort(int cohort, std::chrono::milliseconds from, std::chrono::milliseconds to) const {
    std::lock_guard lock(mutex_);
    std::string out;
    const std::string prefix = fmt::format("lq-{}-", cohort);
    for (const auto& e : events_) {
      if (e.queue.rfind(prefix, 0) == 0 && e.at >= from && e.at <= to) out += "\n    " + e.line;
    }
    return out;
  }

 private:
  struct Event {
    std::chrono::milliseconds at;
    std::string queue;
    std::string line;
  };

  /// Called with mutex_ held.
  void keep(kc::Object object, bool deleted) {
    std::uint64_t rv = 0;
    std::string_view text = object.resource_version();
    std::from_chars(text.data(), text.data() + text.size(), rv);
    versions_.push_back(ObjectVersion{rv, deleted, std::move(object)});
  }

  void record(std::string_view what, const kc::Object& wl, bool deleted) {
    const auto at = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
    auto cond = [&](std::string_view type) {
      auto c = wl.condition(type);
      return c ? c->status + (c->reason.empty() ? "" : "/" + c->reason) : std::string("-");
    };
    std::string_view cq = wl.string_at({"status", "admission", "clusterQueue"});
    std::string line = fmt::format("{:>6} ms {} rv {} {} queue {} admission {} {}m QuotaReserved {} Evicted {} Finished {}",
                                   at.count(), what, wl.resource_version(), wl.name(),
                                   wl.string_at({"spec", "queueName"}), cq.empty() ? "-" : cq,
                                   workload_usage_milli(wl, "cpu"), cond("QuotaReserved"), cond("Evicted"),
                                   cond("Finished"));
    std::lock_guard lock(mutex_);
    events_.push_back(Event{at, std::string(wl.string_at({"spec", "queueName"})), std::move(line)});
    keep(wl, deleted);
  }

  Clock::time_point start_;
  mutable std::mutex mutex_;
  std::vector<Event> events_;
  std::vector<ObjectVersion> versions_;
  std::shared_ptr<kc::Informer> informer_;
  std::shared_ptr<kc::Informer> jobs_informer_;
};

/// One test's faults: a seeded plan whose rules are active from the start until
/// `faults_end` (proxy time), then quiet.
struct Scenario {
  std::string name;
  std::string rules;  ///< the plan's "rules" array, JSON
  std::chrono::milliseconds faults_end{10000};
  std::uint64_t seed = 37;
};

class FaultE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    kube::server::ApiServerOptions options;
    options.listen = "127.0.0.1:0";
    options.crd_paths = {source_dir() + "/deploy/crds"};
    options.fsync = false;
    auto server = kube::server::ApiServer::start(options);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    auto cfg = config::decode_configuration(yaml(read_file(source_dir() + "/deploy/config/config.yaml")));
    ASSERT_TRUE(cfg) << cfg.error().message;
    config_ = *cfg;
  }

  void TearDown() override {
    if (poller_) poller_->stop();
    if (history_) history_->stop();
    if (runner_) runner_->stop();
    if (controller_) controller_->stop();
    for (auto* c : {setup_client_.get(), runner_client_.get(), checker_client_.get(), history_client_.get(),
                    controller_client_.get(), event_client_.get()}) {
      if (c != nullptr) c->shutdown();
    }
    if (proxy_) proxy_->stop();
    if (server_) server_->stop();
  }

  /// A client as `kueuepp controller` makes its own (Kueue's QPS and burst, connections
  /// kept for the writes in flight, managed fields left out), or a plain one for the
  /// test's side (no rate limit).
  std::unique_ptr<kc::Client> make_client(const std::string& url, const std::string& agent, bool controller) {
    kc::ClientConfig config;
    config.server = url;
    kc::ClientOptions options;
    options.user_agent = agent;
    if (controller) {
      options.qps = config_.client_qps;
      options.burst = config_.client_burst;
      options.max_idle_connections = 36;
      options.throttle_granularity = 10ms;
      options.io_batch_interval = 20ms;
      options.strip_managed_fields = true;
    } else {
      options.qps = -1;
    }
    auto client = kc::Client::create(config, options);
    EXPECT_TRUE(client) << client.error().message;
    return client ? std::move(*client) : nullptr;
  }

  void create(const kc::ResourceDescriptor& resource, const std::string& text) {
    auto r = api_->create(resource, kc::Object(yaml(text)));
    ASSERT_TRUE(r) << r.error().message << "\n" << text;
  }

  void create_queues() {
    create(kc::resources::kNamespace, fmt::format("{{apiVersion: v1, kind: Namespace, metadata: {{name: {}}}}}",
                                                  kNamespace));
    create(kc::resources::kResourceFlavor,
           "{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: default}}");
    for (auto [name, value] : {std::pair{"low", 100}, std::pair{"high", 10000}}) {
      create(kc::resources::kWorkloadPriorityClass,
             fmt::format("{{apiVersion: kueue.x-k8s.io/v1beta2, kind: WorkloadPriorityClass, "
                         "metadata: {{name: {}}}, value: {}}}",
                         name, value));
    }
    for (int c = 0; c < kCohorts; ++c) {
      for (int q = 0; q < kQueuesPerCohort; ++q) {
        create(kc::resources::kClusterQueue, fmt::format(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {}}}
spec:
  cohortName: cohort-{}
  namespaceSelector: {{}}
  preemption:
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{{name: cpu, nominalQuota: {}}}]
)",
                                                         cq_name(c, q), c, kNominalCpu));
        create(kc::resources::kLocalQueue,
               fmt::format("{{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, "
                           "metadata: {{name: {}, namespace: {}}}, spec: {{clusterQueue: {}}}}}",
                           lq_name(c, q), kNamespace, cq_name(c, q)));
      }
    }
  }

  void create_job(const JobSpec& j) {
    create(kc::resources::kJob, fmt::format(R"(
apiVersion: batch/v1
kind: Job
metadata:
  name: {}
  namespace: {}
  labels:
    kueue.x-k8s.io/queue-name: {}
    kueue.x-k8s.io/priority-class: {}
spec:
  parallelism: 1
  completions: 1
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sleep", "{}"]
        resources:
          requests:
            cpu: "{}"
)",
                                            j.name, kNamespace, j.queue, j.high ? "high" : "low", j.sleep_s, j.cpu));
  }

  void start_controller() {
    actors::ControllerOptions o;
    o.engine = config_.engine;
    // As `kueuepp controller` sizes them for Kueue's QPS and its 20 ms io batch interval.
    o.max_writes_in_flight = 36;
    o.max_normal_writes_in_flight = 18;
    o.event_client = event_client_.get();
    auto controller = actors::Controller::start(o, *controller_client_);
    ASSERT_TRUE(controller) << controller.error().message;
    controller_ = std::move(*controller);
  }

  std::vector<kc::Object> list(const kc::ResourceDescriptor& resource, std::string_view ns = kNamespace) {
    auto r = api_->list(resource, ns);
    return r ? std::move(r->items) : std::vector<kc::Object>{};
  }

  /// Polls until `done` holds or `bound` passes; false on timeout.
  static bool wait_until(Clock::duration bound, const std::function<bool()>& done) {
    const auto deadline = Clock::now() + bound;
    while (!done()) {
      if (Clock::now() > deadline) return false;
      std::this_thread::sleep_for(200ms);
    }
    return true;
  }

  /// What is not finished yet: Jobs without Complete, Workloads without Finished.
  std::vector<std::string> unfinished() {
    std::vector<std::string> out;
    for (const auto& job : list(kc::resources::kJob)) {
      if (!job.condition_true("Complete")) {
        out.push_back(fmt::format("Job {} (suspend {}, active {})", job.name(),
                                  job.bool_at({"spec", "suspend"}).value_or(false),
                                  job.int_at({"status", "active"}).value_or(0)));
      }
    }
    for (const auto& wl : list(kc::resources::kWorkload)) {
      if (!wl.condition_true("Finished")) {
        auto reserved = wl.condition("QuotaReserved");
        out.push_back(fmt::format("Workload {} (QuotaReserved {} {}, Evicted {})", wl.name(),
                                  reserved ? reserved->status : "-", reserved ? reserved->reason : "",
                                  wl.condition_true("Evicted")));
      }
    }
    return out;
  }

  /// Queues whose status still counts workloads.
  std::vector<std::string> busy_queues() {
    std::vector<std::string> out;
    auto counts = [](const kc::Object& q) {
      return std::tuple{q.int_at({"status", "pendingWorkloads"}).value_or(0),
                        q.int_at({"status", "reservingWorkloads"}).value_or(0),
                        q.int_at({"status", "admittedWorkloads"}).value_or(0)};
    };
    for (const auto& [resource, ns] : {std::pair{&kc::resources::kClusterQueue, std::string_view()},
                                       std::pair{&kc::resources::kLocalQueue, std::string_view(kNamespace)}}) {
      for (const auto& q : list(*resource, ns)) {
        auto [pending, reserving, admitted] = counts(q);
        if (pending != 0 || reserving != 0 || admitted != 0) {
          out.push_back(fmt::format("{} {}: pending {}, reserving {}, admitted {}", q.kind(), q.name(), pending,
                                    reserving, admitted));
        }
      }
    }
    return out;
  }

  /// Evictions the Workloads record (status.schedulingStats.evictions[].count).
  std::int64_t evictions() {
    std::int64_t n = 0;
    for (const auto& wl : list(kc::resources::kWorkload)) {
      const json::value* e = wl.find({"status", "schedulingStats", "evictions"});
      if (e == nullptr || !e->is_array()) continue;
      for (const auto& entry : e->get_array()) {
        if (const json::value* c = json::find(entry, "count"); c && c->is_number()) n += c->to_number<std::int64_t>();
      }
    }
    return n;
  }

  void run(const Scenario& s) {
    const auto started = Clock::now();
    // KUEUEPP_FAULT_SEED replays a plan with another seed (to hunt a rare interleaving).
    std::uint64_t seed = s.seed;
    if (const char* env = std::getenv("KUEUEPP_FAULT_SEED"); env != nullptr && *env != '\0') {
      seed = std::strtoull(env, nullptr, 10);
    }
    auto plan = parse_fault_plan(fmt::format(R"({{"seed": {}, "rules": {}}})", seed, s.rules));
    ASSERT_TRUE(plan) << plan.error().message;
    FaultProxyOptions proxy_options;
    proxy_options.upstream_port = server_->port();
    proxy_options.plan = std::move(*plan);
    log_path_ = (fs::path(::testing::TempDir()) / fmt::format("fault-e2e-{}.log", s.name)).string();
    fs::remove(log_path_);
    proxy_options.log_path = log_path_;
    auto proxy = FaultProxy::start(std::move(proxy_options));
    ASSERT_TRUE(proxy) << proxy.error().message;
    proxy_ = std::move(*proxy);

    setup_client_ = make_client(server_->url(), "fault-e2e-setup", false);
    runner_client_ = make_client(server_->url(), "fault-e2e-job-runner", false);
    checker_client_ = make_client(server_->url(), "fault-e2e-checker", false);
    history_client_ = make_client(server_->url(), "fault-e2e-history", false);
    controller_client_ = make_client(proxy_->url(), "fault-e2e-controller", true);
    event_client_ = make_client(proxy_->url(), "fault-e2e-controller-events", true);
    ASSERT_TRUE(setup_client_ && runner_client_ && checker_client_ && history_client_ && controller_client_ &&
                event_client_);
    api_ = std::make_unique<kc::BlockingClient>(*setup_client_);

    create_queues();
    if (HasFatalFailure()) return;
    start_controller();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(wait_until(30s, [&] { return controller_->synced(); })) << "the controller's watches did not sync";
    cmd::JobRunnerOptions runner_options;
    runner_ = cmd::JobRunner::start(*runner_client_, runner_options);
    const auto checker_start = Clock::now();
    checker_ = std::make_unique<InvariantChecker>(topology(), InvariantChecker::Options{}, checker_start);
    history_ = std::make_unique<History>(*history_client_, checker_start);
    poller_ = std::make_unique<InvariantPoller>(*checker_client_, *checker_);

    // -- the stream, during the faults ------------------------------------------------
    const auto jobs = job_stream();
    const auto stream_start = Clock::now();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      std::this_thread::sleep_until(stream_start + kStreamDuration * i / jobs.size());
      create_job(jobs[i]);
    }
    if (const auto left = s.faults_end - proxy_->elapsed(); left > 0ms) std::this_thread::sleep_for(left);
    const auto faults_ended = Clock::now();

    // -- quiet: everything completes, the queues empty ----------------------------------
    if (!wait_until(kSettleBound, [&] { return unfinished().empty(); })) {
      std::string lines;
      for (const auto& u : unfinished()) lines += "\n    " + u;
      poller_->with_checker([&](InvariantChecker& c) {
        c.record("settled", fmt::format("not finished {} s after the faults stopped:{}",
                                        seconds(kSettleBound), lines));
        return 0;
      });
    }
    const auto finished = Clock::now();
    poller_->with_checker([&](InvariantChecker& c) {
      return c.settled(list(kc::resources::kJob), list(kc::resources::kWorkload));
    });
    if (!wait_until(kQueueStatusBound, [&] { return busy_queues().empty(); })) {
      std::string lines;
      for (const auto& q : busy_queues()) lines += "\n    " + q;
      poller_->with_checker([&](InvariantChecker& c) {
        c.record("settled", fmt::format("queue status still counts workloads {} s after the last finished:{}",
                                        seconds(kQueueStatusBound), lines));
        return 0;
      });
    }
    poller_->stop();
    checker_->finish();
    history_->stop();
    const auto versions = history_->versions();
    const auto job_versions = std::count_if(versions.begin(), versions.end(),
                                            [](const ObjectVersion& v) { return v.object.kind() == "Job"; });
    EXPECT_GT(job_versions, 2 * kJobs) << "the Job watch saw too little to judge the starts on";
    for (auto& line : starts_without_quota(versions)) checker_->record("start", std::move(line));

    const FaultProxyStats stats = proxy_->stats();
    const auto& violations = checker_->violations();
    std::cout << fmt::format(
                     "FAULT-E2E fault={} seed={} requests={} faults={} admissions={} evictions={} violations={} "
                     "settled_after={:.1f}s wall={:.1f}s polls={} victim_overlap={}m",
                     s.name, seed, stats.requests, stats.faults_total(), checker_->admissions(), evictions(),
                     violations.size(), seconds(finished - faults_ended), seconds(Clock::now() - started),
                     checker_->snapshots(), std::max<std::int64_t>(checker_->peak_overlap_milli(), 0))
              << std::endl;
    EXPECT_GT(stats.faults_total(), 0u) << "the plan injected nothing: " << stats.json();
    for (const auto& v : violations) {
      std::string changes;
      // A cohort over its quota: the Workload changes of that cohort that led there.
      if (auto pos = v.what.find("cohort cohort-"); v.invariant == "quota" && pos != std::string::npos) {
        const int cohort = v.what[pos + 14] - '0';
        changes = "\n  the cohort's Workload changes before:" + history_->of_cohort(cohort, v.at - 3000ms, v.at);
      }
      ADD_FAILURE() << "[" << v.invariant << "] at " << v.at.count() << " ms: " << v.what << changes;
    }
    if (!violations.empty()) std::cout << "the fault log: " << log_path_ << std::endl;
  }

  std::unique_ptr<kube::server::ApiServer> server_;
  config::KueueConfiguration config_;
  std::unique_ptr<FaultProxy> proxy_;
  std::string log_path_;
  std::unique_ptr<kc::Client> setup_client_;
  std::unique_ptr<kc::Client> runner_client_;
  std::unique_ptr<kc::Client> checker_client_;
  std::unique_ptr<kc::Client> history_client_;
  std::unique_ptr<kc::Client> controller_client_;
  std::unique_ptr<kc::Client> event_client_;
  std::unique_ptr<kc::BlockingClient> api_;
  std::unique_ptr<actors::Controller> controller_;
  std::unique_ptr<cmd::JobRunner> runner_;
  std::unique_ptr<InvariantChecker> checker_;
  std::unique_ptr<InvariantPoller> poller_;
  std::unique_ptr<History> history_;
};

// The Workload status PATCHes: admissions, evictions, explanations, the job integration's.
constexpr const char* kWorkloadStatus = R"("path": "/workloads/[^/]+/status$")";
// The Workload watches (the controller's is cluster-wide).
constexpr const char* kWorkloadWatch = R"("path": "/workloads$")";
// The Job PATCHes: suspend and resume, the start's and stop's template and startTime.
constexpr const char* kJobPatch = R"("path": "^/apis/batch/v1/namespaces/[^/]+/jobs/[^/]+(/status)?$")";

// The Workload watch lags as it does under load, so that what a lost admission did shows
// only after the next rounds ran: a tree that guessed "not landed" gives the quota away.
TEST_F(FaultE2e, DropWorkloadStatusAnswers) {
  run({"drop_answer-workload-status",
       fmt::format(R"([{{"match": {{"methods": ["PATCH"], {}}}, "fault": "drop_answer", "probability": 0.3,
                      "for_s": 10}},
                     {{"match": {{"watch": true, {}}}, "fault": "lag_watch", "delay_ms": 500, "for_s": 10}}])",
                   kWorkloadStatus, kWorkloadWatch)});
}

TEST_F(FaultE2e, DropJobPatchAnswers) {
  run({"drop_answer-job-patch",
       fmt::format(R"([{{"match": {{"methods": ["PATCH"], {}}}, "fault": "drop_answer", "probability": 0.3,
                      "for_s": 10}}])",
                   kJobPatch)});
}

TEST_F(FaultE2e, ResetBeforeAnything) {
  run({"reset_before-any", R"([{"fault": "reset_before", "probability": 0.05, "for_s": 10}])"});
}

TEST_F(FaultE2e, ConflictOnJobPatches) {
  run({"status409-job-patch",
       fmt::format(R"([{{"match": {{"methods": ["PATCH"], {}}}, "fault": "status", "status": 409,
                      "probability": 0.3, "for_s": 10}}])",
                   kJobPatch)});
}

TEST_F(FaultE2e, ConflictOnWorkloadStatusPatches) {
  run({"status409-workload-status",
       fmt::format(R"([{{"match": {{"methods": ["PATCH"], {}}}, "fault": "status", "status": 409,
                      "probability": 0.3, "for_s": 10}}])",
                   kWorkloadStatus)});
}

TEST_F(FaultE2e, TooManyRequests) {
  run({"status429", R"([{"match": {"watch": false}, "fault": "status", "status": 429, "probability": 0.1,
                        "for_s": 10}])"});
}

TEST_F(FaultE2e, ServiceUnavailable) {
  run({"status503", R"([{"match": {"watch": false}, "fault": "status", "status": 503, "probability": 0.1,
                        "for_s": 10}])"});
}

TEST_F(FaultE2e, InternalError) {
  run({"status500", R"([{"match": {"watch": false}, "fault": "status", "status": 500, "probability": 0.1,
                        "for_s": 10}])"});
}

TEST_F(FaultE2e, CutWatches) {
  run({"cut_watch_after", R"([{"match": {"watch": true}, "fault": "cut_watch_after", "events": 5, "for_s": 10}])"});
}

TEST_F(FaultE2e, ExpiredWatches) {
  run({"watch_gone", R"([{"match": {"watch": true}, "fault": "watch_gone", "events": 8,
                          "for_s": 10}])"});
}

TEST_F(FaultE2e, LaggingWatches) {
  run({"lag_watch", R"([{"match": {"watch": true}, "fault": "lag_watch", "delay_ms": 700, "for_s": 10}])"});
}

TEST_F(FaultE2e, Blackout) {
  run({"blackout", R"([{"fault": "blackout", "from_s": 3, "for_s": 6}])", 9000ms});
}

TEST_F(FaultE2e, AllAtOnce) {
  run({"combined",
       fmt::format(R"([
    {{"match": {{"methods": ["PATCH"], {0}}}, "fault": "drop_answer", "probability": 0.1, "for_s": 12}},
    {{"match": {{"methods": ["PATCH"], {1}}}, "fault": "drop_answer", "probability": 0.1, "for_s": 12}},
    {{"match": {{"methods": ["PATCH"], {1}}}, "fault": "status", "status": 409, "probability": 0.05, "for_s": 12}},
    {{"match": {{"methods": ["PATCH"], {0}}}, "fault": "status", "status": 409, "probability": 0.05, "for_s": 12}},
    {{"match": {{"watch": false}}, "fault": "status", "status": 503, "probability": 0.03, "for_s": 12}},
    {{"match": {{"watch": false}}, "fault": "status", "status": 429, "probability": 0.03, "for_s": 12}},
    {{"fault": "reset_before", "probability": 0.02, "for_s": 12}},
    {{"match": {{"watch": true}}, "fault": "cut_watch_after", "events": 20, "probability": 0.3, "for_s": 12}},
    {{"match": {{"watch": true}}, "fault": "watch_gone", "events": 10, "probability": 0.2, "for_s": 12}},
    {{"match": {{"watch": true}}, "fault": "lag_watch", "delay_ms": 300, "probability": 0.3, "for_s": 12}},
    {{"fault": "blackout", "from_s": 6, "for_s": 2}}])",
                   kWorkloadStatus, kJobPatch),
       12000ms});
}

}  // namespace
}  // namespace kueuepp::faults
