// kueuepp: a Kueue-compatible batch queueing controller. This file only dispatches to
// the subcommands declared in cmd/commands.hpp.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string_view>
#include <vector>

#include "cmd/commands.hpp"

namespace {

struct Command {
  std::string_view name;
  int (*run)(kueuepp::cmd::Args);
  std::string_view summary;
};

constexpr Command kCommands[] = {
    {"scenario", kueuepp::cmd::run_scenario,
     "FILE|DIR...  replay admission scenarios through the engine and compare outcomes"},
    {"apiserver", kueuepp::cmd::run_apiserver,
     "[--listen ADDR:PORT] [--data-dir DIR] [--kubeconfig-out FILE]  run the embedded API server"},
    {"standalone", kueuepp::cmd::run_standalone,
     "[--listen ADDR:PORT] [--data-dir DIR] [--kubeconfig-out FILE]  API server + controller + job runner"},
    {"controller", kueuepp::cmd::run_controller,
     "[--kubeconfig FILE] [--config FILE]  run the controller against a cluster"},
    {"conformance", kueuepp::cmd::run_conformance,
     "[--kubeconfig FILE] [--crds DIR] DIR...  replay recorded kube-apiserver traces"},
    {"whatif", kueuepp::cmd::run_whatif,
     "-f FILE [--kubeconfig FILE] [-o text|json|yaml]  what would happen if this Job or Workload were submitted"},
    {"takeover", kueuepp::cmd::run_takeover,
     "[--dry-run] [--rollback --kueue-crds DIR] [--kubeconfig FILE]  move a cluster from Kueue to kueuepp in place"},
    {"perf", kueuepp::cmd::run_perf,
     "--generator FILE [--rangespec FILE] [--out DIR] [--timeout SECONDS]  Kueue's scheduler performance test"},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: kueuepp COMMAND [ARGS...]\n\ncommands:\n");
  for (const auto& c : kCommands) {
    std::fprintf(out, "  %.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("kueuepp");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);

  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string_view name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    usage(stdout);
    return 0;
  }
  std::vector<std::string_view> args(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (c.name == name) return c.run(args);
  }
  std::fprintf(stderr, "kueuepp: unknown command \"%s\"\n\n", argv[1]);
  usage(stderr);
  return 2;
}
