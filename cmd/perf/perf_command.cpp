// `kueuepp perf`: Kueue's scheduler performance test (test/performance/scheduler) run
// against kueuepp: the embedded API server and the real controller as child processes
// (talking HTTP), the objects of a generator.yaml created with the runner's timing, raw
// Workloads finished after their running time and evictions completed as a job
// integration would, and the checker's figures (wall time, usage per ClusterQueue class,
// average time to admission per workload class) plus the processes' cpu and memory,
// compared with a rangespec.yaml.

#include <signal.h>
#include <stdlib.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cmd/commands.hpp"
#include "cmd/flag_reader.hpp"
#include "cmd/perf/child_process.hpp"
#include "cmd/perf/generator.hpp"
#include "cmd/perf/generator_config.hpp"
#include "cmd/perf/object_builders.hpp"
#include "cmd/perf/range_spec.hpp"
#include "cmd/perf/report.hpp"
#include "cmd/perf/workload_runner.hpp"
#include "config/kueue_configuration.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/client/in_cluster.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::cmd {
namespace {

using namespace std::chrono_literals;
using perf::Millis;

constexpr const char* kUsage =
    "usage: kueuepp perf --generator FILE [--rangespec FILE] [--out DIR] [--timeout SECONDS]\n"
    "                    [--kubeconfig FILE | --controller-config FILE] [--controller-arg ARG]...\n"
    "                    [--crds PATH]... [--jobsets-every N] [--log-level LEVEL]\n"
    "\n"
    "Runs Kueue's scheduler performance test shape (test/performance/scheduler) against kueuepp.\n"
    "Without --kubeconfig it starts `kueuepp apiserver` and `kueuepp controller` as child processes\n"
    "(logs and kubeconfig in DIR), creates the generator's objects with Kueue's runner timing, finishes\n"
    "each Workload runtimeMs after its admission, completes evictions, and prints Kueue's checker figures.\n"
    "  --generator FILE   generator.yaml (cohorts, queue sets, workload sets)\n"
    "  --rangespec FILE   rangespec.yaml: print PASS/FAIL per threshold, exit 1 on any FAIL\n"
    "  --out DIR          logs, kubeconfig and summary.yaml (default: a new /tmp/kueuepp-perf-XXXXXX)\n"
    "  --timeout SECONDS  give up when workloads have not all finished by then (default 600)\n"
    "  --kubeconfig FILE  use this cluster and its controller instead of starting them\n"
    "  --controller-config FILE\n"
    "                     Kueue Configuration for the controller it starts (`kueuepp controller --config`),\n"
    "                     e.g. clientConnection qps/burst; default: the controller's defaults (300/500)\n"
    "  --controller-arg ARG\n"
    "                     one more argument for the controller it starts, e.g. --controller-arg --threads\n"
    "                     --controller-arg 1 (repeat for each; printed with the figures)\n"
    "  --crds PATH        CRDs for the API server (default: deploy/crds, else ../shared/kueue-crds)\n"
    "  --jobsets-every N  every Nth workload of each workload set is a JobSet of two pod sets (driver and\n"
    "                     workers sharing its cpu) that the controller queues, instead of a raw Workload;\n"
    "                     the runner marks a JobSet Completed runtimeMs after its Workload's admission.\n"
    "                     The controller must manage JobSets and copy the perf labels to Workloads: perf\n"
    "                     writes such a Configuration when none is given, and checks a given one; the API\n"
    "                     server must serve the JobSet CRD (added to the defaults from\n"
    "                     ../shared/third-party-crds when found; else pass --crds)\n"
    "  --log-level LEVEL  this command's log level (default info)\n";

struct Flags {
  std::string generator;
  std::string rangespec;
  std::string out;
  double timeout_s = 600;
  std::string kubeconfig;
  std::string controller_config;
  std::vector<std::string> controller_args;
  std::vector<std::string> crds;
  std::int64_t jobsets_every = 0;
  std::string log_level = "info";
};

std::string parse(Args args, Flags& f) {
  FlagReader reader(args);
  while (const auto next = reader.next()) {
    const std::string_view a = *next;
    std::string v;
    if (a == "--generator") {
      if (!reader.value(f.generator)) return "--generator needs a file";
    } else if (a == "--rangespec") {
      if (!reader.value(f.rangespec)) return "--rangespec needs a file";
    } else if (a == "--out") {
      if (!reader.value(f.out)) return "--out needs a directory";
    } else if (a == "--kubeconfig") {
      if (!reader.value(f.kubeconfig)) return "--kubeconfig needs a file";
    } else if (a == "--controller-config") {
      if (!reader.value(f.controller_config)) return "--controller-config needs a file";
      if (!std::filesystem::is_regular_file(f.controller_config)) {
        return "--controller-config " + f.controller_config + ": no such file";
      }
      f.controller_config = std::filesystem::absolute(f.controller_config).string();
    } else if (a == "--controller-arg") {
      if (!reader.value(v)) return "--controller-arg needs an argument for the controller";
      f.controller_args.push_back(v);
    } else if (a == "--crds") {
      if (!reader.value(v)) return "--crds needs a path";
      f.crds.push_back(v);
    } else if (a == "--jobsets-every") {
      if (!reader.value(v)) return "--jobsets-every needs a number";
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), f.jobsets_every);
      if (ec != std::errc() || end != v.data() + v.size() || f.jobsets_every < 1) {
        return "--jobsets-every needs a positive whole number (1: every workload a JobSet), got \"" + v + "\"";
      }
    } else if (a == "--log-level") {
      if (!reader.value(f.log_level)) return "--log-level needs a level";
    } else if (a == "--timeout") {
      if (!reader.value(v)) return "--timeout needs a number of seconds";
      try {
        std::size_t used = 0;
        f.timeout_s = std::stod(v, &used);
        if (used != v.size() || !(f.timeout_s > 0)) return "--timeout needs a positive number of seconds";
      } catch (const std::exception&) {
        return "--timeout needs a positive number of seconds, got \"" + v + "\"";
      }
    } else {
      return "unknown argument \"" + std::string(a) + "\"";
    }
  }
  if (f.generator.empty()) return "--generator is required";
  if (!f.kubeconfig.empty() && !f.controller_config.empty()) {
    return "--controller-config configures the controller perf starts; with --kubeconfig, configure yours";
  }
  if (!f.kubeconfig.empty() && !f.controller_args.empty()) {
    return "--controller-arg is for the controller perf starts; with --kubeconfig, start yours with it";
  }
  return {};
}

std::vector<std::string> default_crds(bool jobsets) {
  std::vector<std::string> out;
  for (const char* dir : {"deploy/crds", "../shared/kueue-crds"}) {
    if (std::filesystem::is_directory(dir)) {
      out.push_back(std::filesystem::absolute(dir).string());
      break;
    }
  }
  constexpr const char* kJobSetCrd = "../shared/third-party-crds/jobset.x-k8s.io_jobsets.yaml";
  if (!out.empty() && jobsets && std::filesystem::is_regular_file(kJobSetCrd)) {
    out.push_back(std::filesystem::absolute(kJobSetCrd).string());
  }
  return out;
}

constexpr std::string_view kJobSetFramework = "jobset.x-k8s.io/jobset";

/// The started controller's Configuration for --jobsets-every when none is given.
std::string jobset_controller_configuration() {
  return std::string(
             "# Written by kueuepp perf --jobsets-every: JobSets managed, the perf labels copied to their\n"
             "# Workloads (the runner watches Workloads by its class label).\n"
             "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
             "kind: Configuration\n"
             "integrations:\n"
             "  frameworks: [batch/job, ") +
         std::string(kJobSetFramework) + "]\n  labelKeysToCopy: [" + std::string(perf::kClassLabel) + ", " +
         std::string(perf::kRunningTimeLabel) + "]\n";
}

/// What a given Configuration lacks for --jobsets-every (empty: nothing).
std::string jobset_configuration_gaps(const std::string& path) {
  auto text = perf::read_text_file(path);
  if (!text) return text.error().message;
  auto doc = json::parse_yaml(*text);
  if (!doc) return path + ": " + doc.error().message;
  config::ConfigurationDecodeOptions options;
  options.allow_unsupported = true;
  auto cfg = config::decode_configuration(*doc, options);
  if (!cfg) return path + ": " + cfg.error().message;
  std::string gaps;
  auto has = [](const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  if (!has(cfg->frameworks, kJobSetFramework)) gaps += " integrations.frameworks needs " + std::string(kJobSetFramework) + ";";
  for (std::string_view label : {perf::kClassLabel, perf::kRunningTimeLabel}) {
    if (!has(cfg->label_keys_to_copy, label)) gaps += " integrations.labelKeysToCopy needs " + std::string(label) + ";";
  }
  if (gaps.empty()) return {};
  gaps.pop_back();
  return "--jobsets-every: the controller's Configuration " + path + " does not let it run the perf JobSets:" + gaps;
}

/// Ends the run early: a message for the user.
struct Abort {
  std::string message;
  int exit_code = 1;
};

/// The stop signals, blocked in every thread and polled by the main loop.
class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  }
  /// Waits up to `d` for a stop signal; returns it (0 when none came).
  int wait(std::chrono::milliseconds d) {
    timespec ts{static_cast<time_t>(d.count() / 1000), static_cast<long>((d.count() % 1000) * 1'000'000)};
    int sig = sigtimedwait(&set_, nullptr, &ts);
    return sig > 0 ? sig : 0;
  }

 private:
  sigset_t set_;
};

Expected<std::unique_ptr<kube::client::Client>> client_for(const std::string& kubeconfig, double qps, int burst,
                                                           std::size_t idle_connections) {
  kube::client::ConfigLoadOptions load;
  load.kubeconfig_path = kubeconfig;
  auto cfg = kube::client::load_client_config(load);
  if (!cfg) return fail(cfg.error().message);
  kube::client::ClientOptions options;
  options.qps = qps;
  options.burst = burst;
  options.max_idle_connections = idle_connections;
  options.user_agent = "kueuepp-perf/0.1";
  options.field_manager = "kueuepp-perf";
  return kube::client::Client::create(*cfg, options);
}

/// A client for the controller's probe server (plain HTTP on loopback).
Expected<std::unique_ptr<kube::client::Client>> probe_client(std::uint16_t port) {
  kube::client::ClientConfig cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(port);
  cfg.source = "controller probes";
  kube::client::ClientOptions options;
  options.qps = -1;
  options.request_timeout = 5s;
  options.connect_timeout = 2s;
  return kube::client::Client::create(cfg, options);
}

/// GET path: (status, body), or nullopt when it did not answer.
std::optional<std::pair<int, std::string>> http_get(kube::client::Client& client, const std::string& path,
                                                    std::chrono::milliseconds timeout = 3s) {
  kube::client::BlockingClient blocking(client);
  kube::client::HttpRequest req;
  req.target = path;
  kube::client::RawOptions options;
  options.timeout = timeout;
  auto r = blocking.raw(req, options);
  if (!r) return std::nullopt;
  return std::make_pair(r->status, r->body);
}

// Enough lines for a refused argument: the controller prints it above its usage (about
// 45 lines).
std::string died_message(perf::ChildProcess& p) {
  return "the " + p.name() + " " + p.exit_description() + "; last lines of " + p.log_path() + ":\n" +
         perf::tail_file(p.log_path(), 80);
}

class PerfRun {
 public:
  PerfRun(Flags flags, perf::GeneratorConfig config, std::optional<perf::RangeSpec> spec)
      : flags_(std::move(flags)), config_(std::move(config)), spec_(std::move(spec)), t0_(std::chrono::steady_clock::now()) {}

  ~PerfRun() { shutdown(); }

  int run() {
    try {
      prepare_out_dir();
      if (flags_.kubeconfig.empty()) {
        start_apiserver();
        start_controller();
      }
      return measure();
    } catch (const Abort& a) {
      std::fprintf(stderr, "kueuepp perf: %s\n", a.message.c_str());
      if (!out_dir_.empty()) std::fprintf(stderr, "kueuepp perf: logs are in %s\n", out_dir_.c_str());
      shutdown();
      return a.exit_code;
    }
  }

 private:
  Millis now_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0_).count();
  }

  /// Polls every 50 ms until `ready` returns true; aborts on a stop signal, a dead child
  /// or the deadline.
  template <class Ready>
  void wait_for(const std::string& what, std::chrono::milliseconds limit, Ready ready) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!ready()) {
      for (perf::ChildProcess* p : {apiserver_.get(), controller_.get()}) {
        if (p != nullptr && !p->running()) throw Abort{"waiting for " + what + ": " + died_message(*p)};
      }
      if (std::chrono::steady_clock::now() > deadline) {
        throw Abort{"timed out after " + std::to_string(limit.count() / 1000) + " s waiting for " + what};
      }
      if (int sig = signals_.wait(50ms)) throw Abort{"interrupted by signal " + std::to_string(sig), 130};
    }
  }

  void prepare_out_dir() {
    namespace fs = std::filesystem;
    if (flags_.out.empty()) {
      std::string templ = (fs::temp_directory_path() / "kueuepp-perf-XXXXXX").string();
      if (::mkdtemp(templ.data()) == nullptr) throw Abort{"cannot create a directory under " + fs::temp_directory_path().string()};
      out_dir_ = templ;
    } else {
      std::error_code ec;
      fs::create_directories(flags_.out, ec);
      if (ec) throw Abort{"cannot create " + flags_.out + ": " + ec.message()};
      out_dir_ = fs::absolute(flags_.out).string();
    }
  }

  void start_apiserver() {
    namespace fs = std::filesystem;
    std::vector<std::string> crds = flags_.crds;
    for (auto& c : crds) c = fs::absolute(c).string();
    if (crds.empty()) crds = default_crds(flags_.jobsets_every > 0);
    if (crds.empty()) throw Abort{"no CRDs found (looked for deploy/crds and ../shared/kueue-crds); pass --crds DIR", 2};
    std::error_code ec;
    exe_ = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec) throw Abort{"cannot resolve /proc/self/exe: " + ec.message()};
    kubeconfig_ = out_dir_ + "/kubeconfig";
    fs::remove(kubeconfig_, ec);

    std::vector<std::string> args = {"apiserver", "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig_};
    for (const auto& c : crds) {
      args.push_back("--crds");
      args.push_back(c);
    }
    args.push_back("--no-fsync");
    auto p = perf::ChildProcess::spawn("apiserver", exe_, args, out_dir_ + "/apiserver.log");
    if (!p) throw Abort{p.error().message};
    apiserver_ = std::move(*p);
    spdlog::info("started kueuepp apiserver (pid {}), log {}", apiserver_->pid(), apiserver_->log_path());

    wait_for("the API server", 60s, [&] {
      if (!fs::exists(kubeconfig_)) return false;
      if (!client_) {
        auto c = client_for(kubeconfig_, 1000, 2000, 64);
        if (!c) throw Abort{"kubeconfig " + kubeconfig_ + ": " + c.error().message};
        client_ = std::move(*c);
      }
      auto r = http_get(*client_, "/readyz", 1s);
      return r && r->first == 200;
    });
    spdlog::info("API server ready at {}", client_->config().server);
  }

  void start_controller() {
    // One replica, measured alone: no Leases (leader election and sharding have their own
    // figures, bench/sharding_throughput.sh).
    std::vector<std::string> args = {"controller", "--kubeconfig", kubeconfig_, "--probe-listen", "127.0.0.1:0",
                                     "--leader-elect", "false"};
    if (flags_.jobsets_every > 0) {
      if (flags_.controller_config.empty()) {
        flags_.controller_config = out_dir_ + "/controller-config.yaml";
        std::ofstream out(flags_.controller_config);
        out << jobset_controller_configuration();
        if (!out) throw Abort{"cannot write " + flags_.controller_config};
      } else if (std::string gaps = jobset_configuration_gaps(flags_.controller_config); !gaps.empty()) {
        throw Abort{gaps, 2};
      }
    }
    if (!flags_.controller_config.empty()) {
      args.push_back("--config");
      args.push_back(flags_.controller_config);
    }
    args.insert(args.end(), flags_.controller_args.begin(), flags_.controller_args.end());
    auto p = perf::ChildProcess::spawn("controller", exe_, args, out_dir_ + "/controller.log");
    if (!p) throw Abort{p.error().message};
    controller_ = std::move(*p);
    spdlog::info("started kueuepp controller (pid {}), log {}", controller_->pid(), controller_->log_path());

    // --probe-listen 127.0.0.1:0 picks a port: find it among the ports the process listens on.
    wait_for("the controller's probes to report ready (/readyz)", 60s, [&] {
      if (!probes_) {
        for (std::uint16_t port : perf::listening_ports(controller_->pid())) {
          auto c = probe_client(port);
          if (!c) continue;
          auto r = http_get(**c, "/healthz", 1s);
          if (r && r->first == 200) {
            probes_ = std::move(*c);
            probe_port_ = port;
            break;
          }
          (*c)->shutdown();
        }
        if (!probes_) return false;
      }
      auto r = http_get(*probes_, "/readyz", 1s);
      return r && r->first == 200;
    });
    spdlog::info("controller ready; introspection on http://127.0.0.1:{}/debug/actors", probe_port_);
  }

  int measure() {
    if (!client_) {
      auto c = client_for(flags_.kubeconfig.empty() ? kubeconfig_ : flags_.kubeconfig, 1000, 2000, 64);
      if (!c) throw Abort{c.error().message};
      client_ = std::move(*c);
    }
    auto clock = [t0 = t0_] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    };
    runner_ = perf::WorkloadRunner::start(*client_, clock);
    wait_for("the runner's watches (Workloads, ClusterQueues) to sync", 30s, [&] { return runner_->progress().synced; });

    const std::int64_t total = config_.total_workloads();
    spdlog::info("generating {} ClusterQueues and {} workloads", config_.total_cluster_queues(), total);
    generator_ = perf::Generator::start(*client_, config_, clock, 32, perf::WorkloadMix{flags_.jobsets_every});

    const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(flags_.timeout_s * 1000));
    const auto started = std::chrono::steady_clock::now();
    auto last_progress = started;
    bool expected_set = false;
    std::vector<std::string> warnings;
    Millis end_ms = 0;
    for (;;) {
      if (int sig = signals_.wait(100ms)) throw Abort{"interrupted by signal " + std::to_string(sig), 130};
      for (perf::ChildProcess* p : {apiserver_.get(), controller_.get()}) {
        if (p != nullptr && !p->running()) throw Abort{died_message(*p)};
      }
      perf::GeneratorStatus gen = generator_->status();
      if (!gen.error.empty()) throw Abort{"generator: " + gen.error};
      if (gen.done && !expected_set) {
        expected_set = true;
        spdlog::info("generation done: {} objects, {} workloads in {} ms", gen.objects_created, gen.workloads_created,
                     gen.finished_at - gen.started_at);
        runner_->expect(gen.workloads_created);
      }
      perf::RunnerProgress pr = runner_->progress();
      auto now = std::chrono::steady_clock::now();
      if (now - last_progress >= 5s) {
        last_progress = now;
        spdlog::info("t={:.1f}s created {}/{} admitted {} running {} finished {} evictions {} busy queues {}",
                     static_cast<double>(now_ms() - gen.started_at) / 1000.0, gen.workloads_created, total, pr.admitted,
                     pr.running, pr.finished, pr.evictions, pr.busy_queues);
      }
      if (pr.completed_at) {
        end_ms = *pr.completed_at;
        break;
      }
      if (pr.all_finished_at && now_ms() - *pr.all_finished_at > 15'000) {
        warnings.push_back(std::to_string(pr.busy_queues) +
                           " ClusterQueue(s) still reported pending or reserving workloads 15 s after every workload "
                           "finished (stale ClusterQueue status); the run ends at the last finish");
        end_ms = *pr.all_finished_at;
        break;
      }
      if (now - started > timeout) throw Abort{timeout_message(pr, gen, total)};
    }

    if (std::string busy = local_queues_still_busy(15s); !busy.empty()) warnings.push_back(busy);

    // Figures of the processes, read before they are stopped.
    perf::RunReport report;
    report.generator_path = flags_.generator;
    report.controller_config = flags_.controller_config;
    report.controller_args = flags_.controller_args;
    report.jobsets_every = flags_.jobsets_every;
    report.cluster_queues = config_.total_cluster_queues();
    report.workloads_expected = total;
    report.generator = generator_->status();
    report.progress = runner_->progress();
    report.wall_ms = end_ms - report.generator.started_at;
    report.summary = runner_->summary();
    report.warnings = std::move(warnings);
    for (auto [child, slot] : {std::pair{controller_.get(), &report.controller}, std::pair{apiserver_.get(), &report.apiserver}}) {
      if (child == nullptr) continue;
      auto usage = perf::read_process_usage(child->pid());
      if (!usage) throw Abort{child->name() + ": " + usage.error().message};
      *slot = perf::ProcessReport{child->name(), child->pid(), *usage,
                                  std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                                        child->started_at())
                                      .count()};
    }
    report.runner = perf::ProcessReport{"runner", ::getpid(), perf::self_usage(), now_ms()};

    bool clean = shutdown();
    if (!clean) report.warnings.push_back("a child process did not stop cleanly; see its log in " + out_dir_);
    if (spec_) {
      report.has_range_spec = true;
      perf::MeasuredRun measured;
      measured.wall_ms = report.wall_ms;
      measured.summary = report.summary;
      if (report.controller) {
        measured.controller_mcpu = report.wall_ms > 0 ? report.controller->usage.cpu_ms() * 1000 / report.wall_ms : 0;
        measured.controller_max_rss_kib = report.controller->usage.peak_rss_kib;
      }
      report.checks = perf::check_range_spec(*spec_, measured);
    }

    std::fputs(perf::render_text(report).c_str(), stdout);
    std::fflush(stdout);
    if (!flags_.out.empty()) {
      std::string path = out_dir_ + "/summary.yaml";
      std::ofstream out(path);
      out << perf::render_yaml(report);
      if (!out) throw Abort{"cannot write " + path};
      std::printf("  summary written to %s (logs in %s)\n", path.c_str(), out_dir_.c_str());
    } else {
      std::printf("  logs in %s\n", out_dir_.c_str());
    }
    bool failed = false;
    for (const auto& c : report.checks) failed = failed || !c.pass;
    if (report.progress.finished < total) failed = true;
    return failed ? 1 : 0;
  }

  /// The LocalQueues' status must settle too once every workload finished: their counts
  /// are written with their ClusterQueue's, by the same actor, but the runner watches only
  /// ClusterQueues. Looks until all show nothing pending or reserving, for up to `wait`;
  /// says which did not (empty: all settled).
  std::string local_queues_still_busy(std::chrono::milliseconds wait) {
    kube::client::BlockingClient blocking(*client_);
    const auto deadline = std::chrono::steady_clock::now() + wait;
    std::vector<std::string> busy;
    std::string error;
    for (;;) {
      busy.clear();
      auto list = blocking.list(kube::client::resources::kLocalQueue, "");
      if (list) {
        for (const auto& lq : list->items) {
          if (lq.int_at({"status", "pendingWorkloads"}).value_or(0) > 0 ||
              lq.int_at({"status", "reservingWorkloads"}).value_or(0) > 0) {
            busy.push_back(std::string(lq.namespace_name()) + "/" + std::string(lq.name()));
          }
        }
        if (busy.empty()) return {};
      } else {
        error = list.error().message;
      }
      if (std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(200ms);
    }
    if (busy.empty()) return "LocalQueues not checked at the end: " + error;
    std::string names;
    for (std::size_t i = 0; i < busy.size() && i < 5; ++i) names += (i ? ", " : "") + busy[i];
    return std::to_string(busy.size()) + " LocalQueue(s) still reported pending or reserving workloads " +
           std::to_string(wait.count() / 1000) + " s after the queues were idle (stale LocalQueue status): " + names;
  }

  std::string timeout_message(const perf::RunnerProgress& pr, const perf::GeneratorStatus& gen, std::int64_t total) {
    std::string msg = "timed out after " + std::to_string(static_cast<std::int64_t>(flags_.timeout_s)) +
                      " s: created " + std::to_string(gen.workloads_created) + "/" + std::to_string(total) +
                      ", admitted " + std::to_string(pr.admitted) + ", running " + std::to_string(pr.running) +
                      ", finished " + std::to_string(pr.finished) + ", evictions " + std::to_string(pr.evictions) +
                      ", ClusterQueues still busy " + std::to_string(pr.busy_queues) + ", runner write errors " +
                      std::to_string(pr.write_errors) + (pr.last_write_error.empty() ? "" : " (last: " + pr.last_write_error + ")");
    auto stuck = runner_->unfinished(10);
    if (!stuck.empty()) {
      msg += "\n  unfinished workloads, e.g.:";
      for (const auto& s : stuck) msg += "\n    " + s;
    }
    if (probes_) {
      for (std::size_t i = 0; i < stuck.size() && i < 3; ++i) {
        std::string key = stuck[i].substr(0, stuck[i].find(' '));
        if (auto r = http_get(*probes_, "/debug/workloads/" + key)) {
          msg += "\n  controller /debug/workloads/" + key + " (HTTP " + std::to_string(r->first) + "):\n    " + r->second;
        }
      }
    }
    return msg;
  }

  /// Stops everything started, in order: generator and runner, clients, controller, API
  /// server. Returns false when a child did not stop cleanly. Idempotent.
  bool shutdown() {
    bool clean = true;
    if (generator_) generator_->stop();
    if (runner_) runner_->stop();
    if (probes_) probes_->shutdown();
    if (client_) client_->shutdown();
    for (perf::ChildProcess* p : {controller_.get(), apiserver_.get()}) {
      if (p == nullptr) continue;
      bool was_running = p->running();
      std::string how = p->stop();
      if (was_running) spdlog::info("stopped the {} (pid {}): {}", p->name(), p->pid(), how);
      clean = clean && p->ended_cleanly();
    }
    return clean;
  }

  Flags flags_;
  perf::GeneratorConfig config_;
  std::optional<perf::RangeSpec> spec_;
  std::chrono::steady_clock::time_point t0_;
  StopSignals signals_;
  std::string out_dir_;
  std::string exe_;
  std::string kubeconfig_;
  std::unique_ptr<perf::ChildProcess> apiserver_;
  std::unique_ptr<perf::ChildProcess> controller_;
  std::unique_ptr<kube::client::Client> client_;
  std::unique_ptr<kube::client::Client> probes_;
  std::uint16_t probe_port_ = 0;
  std::shared_ptr<perf::WorkloadRunner> runner_;
  std::shared_ptr<perf::Generator> generator_;
};

}  // namespace

int run_perf(Args args) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  Flags f;
  if (auto e = parse(args, f); !e.empty()) {
    std::fprintf(stderr, "kueuepp perf: %s\n\n%s", e.c_str(), kUsage);
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(f.log_level));
  auto config = perf::load_generator_config(f.generator);
  if (!config) {
    std::fprintf(stderr, "kueuepp perf: %s\n", config.error().message.c_str());
    return 2;
  }
  std::optional<perf::RangeSpec> spec;
  if (!f.rangespec.empty()) {
    auto s = perf::load_range_spec(f.rangespec);
    if (!s) {
      std::fprintf(stderr, "kueuepp perf: %s\n", s.error().message.c_str());
      return 2;
    }
    spec = std::move(*s);
  }
  if (config->total_workloads() == 0) {
    std::fprintf(stderr, "kueuepp perf: %s creates no workloads\n", f.generator.c_str());
    return 2;
  }
  PerfRun run(std::move(f), std::move(*config), std::move(spec));
  return run.run();
}

}  // namespace kueuepp::cmd
