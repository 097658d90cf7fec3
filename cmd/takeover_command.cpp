// `kueuepp takeover`: moves a live cluster from Kueue to kueuepp in place, through the
// Kubernetes API, nothing lost (docs/user-guide/takeover.md). The steps
// (kube/takeover/takeover_step.hpp) are each naturally idempotent: an interrupted
// takeover is finished by running the command again.

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "cmd/commands.hpp"
#include "cmd/flag_reader.hpp"
#include "cmd/takeover/crd_handover.hpp"
#include "cmd/takeover/deployment_scaling.hpp"
#include "cmd/takeover/storage_migration.hpp"
#include "cmd/takeover/takeover_check.hpp"
#include "cmd/takeover/takeover_context.hpp"
#include "cmd/takeover/webhook_handover.hpp"
#include "kube/client/client.hpp"
#include "kube/client/in_cluster.hpp"
#include "kube/takeover/takeover_step.hpp"

namespace kueuepp::cmd {

namespace {

using takeover::TakeoverContext;
using kube::takeover::TakeoverStep;

constexpr const char* kUsage =
    "usage: kueuepp takeover [--kubeconfig FILE] [--context NAME] [--dry-run] [--crds DIR]\n"
    "                        [--kueue-namespace NS] [--kueue-deployment NAME] [--timeout SECONDS]\n"
    "                        [--qps N] [--burst N]\n"
    "       kueuepp takeover --rollback --kueue-crds DIR [--kubeconfig FILE] ...\n"
    "\n"
    "Moves a cluster that runs Kueue (v0.14 or later) to kueuepp in place, keeping every queue, Workload\n"
    "and admission: checks first (and refuses, naming the object and what to do), scales Kueue's controller\n"
    "to zero, removes Kueue's webhook configurations (kueuepp's must be installed, with their caBundle),\n"
    "updates Kueue's CRDs in place to kueuepp's (v1beta1 and v1beta2 served, v1beta2 stored), rewrites\n"
    "every Kueue object so it is stored as v1beta2, and trims status.storedVersions. Run it again after an\n"
    "interruption: it does what is left.\n"
    "\n"
    "  --dry-run               check, say what each step would do, change nothing\n"
    "  --crds DIR              kueuepp's CRD manifests (default deploy/crds)\n"
    "  --kueue-namespace NS    Kueue's namespace (default kueue-system)\n"
    "  --kueue-deployment NAME Kueue's controller Deployment (default kueue-controller-manager)\n"
    "  --timeout SECONDS       how long to wait for Kueue's pods to stop and CRDs to serve (default 300)\n"
    "  --qps N, --burst N      the pace of its requests to the API server (default 200, burst 400; a\n"
    "                          negative --qps: unlimited): the storage migration writes every Kueue\n"
    "                          object once, 50,000 Workloads in about 4 minutes at 200 a second\n"
    "  --rollback              give the cluster back to Kueue: its CRDs (from --kueue-crds DIR, the\n"
    "                          objects moved to their storage version first), its webhook configurations\n"
    "                          (saved by the takeover), its controller scaled up. kueuepp's webhook server\n"
    "                          must run meanwhile (it converts the objects back); stop kueuepp after.\n";

struct Flags {
  std::string kubeconfig;
  std::string context;
  /// Higher than the client's default (50): a one-time migration of every object, which
  /// kube-apiserver takes at several hundred writes a second.
  double qps = 200;
  int burst = 400;
  bool dry_run = false;
  bool rollback = false;
  takeover::TakeoverOptions options;
};

Expected<Flags> parse_flags(Args args) {
  Flags f;
  FlagReader reader(args);
  while (const auto next = reader.next()) {
    const std::string_view a = *next;
    Status s;
    std::string number;
    if (a == "--kubeconfig") {
      s = reader.value(f.kubeconfig);
    } else if (a == "--context") {
      s = reader.value(f.context);
    } else if (a == "--dry-run") {
      f.dry_run = true;
    } else if (a == "--rollback") {
      f.rollback = true;
    } else if (a == "--crds") {
      s = reader.value(f.options.crds_dir);
    } else if (a == "--kueue-crds") {
      s = reader.value(f.options.kueue_crds_dir);
    } else if (a == "--kueue-namespace") {
      s = reader.value(f.options.kueue_namespace);
    } else if (a == "--kueue-deployment") {
      s = reader.value(f.options.kueue_deployment);
    } else if (a == "--qps" || a == "--burst") {
      s = reader.value(number);
      if (s) {
        char* end = nullptr;
        const double n = std::strtod(number.c_str(), &end);
        if (end == number.c_str() || *end != '\0' || (a == "--burst" && (n < 1 || n > 100000)) || n > 100000) {
          return fail(std::string(a) + (a == "--qps" ? " needs a number of requests a second (negative: unlimited)"
                                                      : " needs a number of requests from 1 to 100000"));
        }
        if (a == "--qps") {
          f.qps = n;
        } else {
          f.burst = static_cast<int>(n);
        }
      }
    } else if (a == "--timeout") {
      s = reader.value(number);
      if (s) {
        char* end = nullptr;
        long seconds = std::strtol(number.c_str(), &end, 10);
        if (end == number.c_str() || *end != '\0' || seconds < 1 || seconds > 86400) {
          return fail("--timeout needs a number of seconds from 1 to 86400");
        }
        f.options.timeout = std::chrono::seconds(seconds);
      }
    } else {
      return fail("unknown argument \"" + std::string(a) + "\"");
    }
    if (!s) return unexpected(s.error());
  }
  if (f.rollback && f.options.kueue_crds_dir.empty()) {
    return fail("--rollback needs --kueue-crds DIR: the CRDs of the Kueue release to go back to");
  }
  return f;
}

/// KUEUEPP_TAKEOVER_STOP_AFTER=STEP: stops after that step, as an interruption would
/// (for the tests of running the takeover again).
std::optional<TakeoverStep> stop_after() {
  const char* env = std::getenv("KUEUEPP_TAKEOVER_STOP_AFTER");
  if (env == nullptr || *env == '\0') return std::nullopt;
  return kube::takeover::parse_step(env);
}

Status run_step(TakeoverContext& ctx, TakeoverStep step) {
  switch (step) {
    case TakeoverStep::Check: {
      auto report = takeover::check_cluster(ctx);
      if (!report) return unexpected(report.error());
      if (!report->refusals.empty()) {
        std::string message = "kueuepp cannot take this cluster over:";
        for (const auto& r : report->refusals) message += "\n  " + r.describe();
        return fail(message);
      }
      std::fprintf(ctx.out, "check: passed\n");
      return {};
    }
    case TakeoverStep::ScaleDown: return takeover::scale_kueue_down(ctx);
    case TakeoverStep::Webhooks: return takeover::hand_webhooks_to_kueuepp(ctx);
    case TakeoverStep::Crds: return takeover::replace_crds(ctx);
    case TakeoverStep::MigrateStorage: return takeover::migrate_storage(ctx);
    case TakeoverStep::TrimStoredVersions: return takeover::trim_stored_versions(ctx);
  }
  return {};
}

int run_takeover_steps(TakeoverContext& ctx) {
  const auto stop = stop_after();
  for (TakeoverStep step : kube::takeover::takeover_steps()) {
    if (auto s = run_step(ctx, step); !s) {
      std::fprintf(stderr, "takeover: step %.*s failed: %s\n", static_cast<int>(kube::takeover::step_name(step).size()),
                   kube::takeover::step_name(step).data(), s.error().message.c_str());
      return 1;
    }
    if (stop && *stop == step) {
      std::fprintf(stderr, "takeover: stopped after step %.*s (KUEUEPP_TAKEOVER_STOP_AFTER)\n",
                   static_cast<int>(kube::takeover::step_name(step).size()), kube::takeover::step_name(step).data());
      return 3;
    }
  }
  std::fprintf(ctx.out, "takeover: done; kueuepp manages this cluster's queues\n");
  return 0;
}

int run_dry_run(TakeoverContext& ctx) {
  auto report = takeover::check_cluster(ctx);
  if (!report) {
    std::fprintf(stderr, "takeover: %s\n", report.error().message.c_str());
    return 1;
  }
  if (!report->refusals.empty()) {
    std::fprintf(stderr, "takeover: kueuepp cannot take this cluster over:\n");
    for (const auto& r : report->refusals) std::fprintf(stderr, "  %s\n", r.describe().c_str());
    return 1;
  }
  takeover::print_plan(ctx, *report);
  std::fprintf(ctx.out, "dry run: nothing was changed\n");
  return 0;
}

int run_rollback(TakeoverContext& ctx) {
  for (auto [what, step] : {std::pair{"CRDs", &takeover::restore_kueue_crds},
                            std::pair{"webhooks", &takeover::hand_webhooks_back_to_kueue},
                            std::pair{"controller", &takeover::scale_kueue_up}}) {
    if (auto s = step(ctx); !s) {
      std::fprintf(stderr, "takeover --rollback: %s: %s\n", what, s.error().message.c_str());
      return 1;
    }
  }
  std::fprintf(ctx.out, "rollback: done; Kueue manages this cluster again\n");
  return 0;
}

}  // namespace

int run_takeover(Args args) {
  for (std::string_view a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  auto flags = parse_flags(args);
  if (!flags) {
    std::fprintf(stderr, "takeover: %s\n\n%s", flags.error().message.c_str(), kUsage);
    return 2;
  }
  kube::client::ConfigLoadOptions load;
  load.kubeconfig_path = flags->kubeconfig;
  load.context = flags->context;
  auto config = kube::client::load_client_config(load);
  if (!config) {
    std::fprintf(stderr, "takeover: %s\n", config.error().message.c_str());
    return 1;
  }
  kube::client::ClientOptions client_options;
  client_options.qps = flags->qps;
  client_options.burst = flags->burst;
  // Enough connections for the migration's writes in flight.
  client_options.max_idle_connections = static_cast<std::size_t>(flags->options.parallel_writes);
  auto client = kube::client::Client::create(*config, client_options);
  if (!client) {
    std::fprintf(stderr, "takeover: %s\n", client.error().message.c_str());
    return 1;
  }
  kube::client::BlockingClient api(**client);
  TakeoverContext ctx{api, flags->options, stdout};
  if (flags->dry_run) return run_dry_run(ctx);
  if (flags->rollback) return run_rollback(ctx);
  return run_takeover_steps(ctx);
}

}  // namespace kueuepp::cmd
