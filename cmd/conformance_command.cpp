// `kueuepp conformance [--kubeconfig FILE] [--crds DIR] DIR|FILE...`: replays recorded
// kube-apiserver traces (../shared/apiserver-conformance) against the server a
// kubeconfig names, or against a fresh embedded API server started in-process.

#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cmd/commands.hpp"
#include "cmd/flag_reader.hpp"
#include "kube/client/client.hpp"
#include "kube/client/kubeconfig.hpp"
#include "kube/apiserver/conformance/client_transport.hpp"
#include "kube/apiserver/conformance/replayer.hpp"
#include "kube/apiserver/server/api_server.hpp"

namespace kueuepp::cmd {

namespace {

constexpr const char* kUsage =
    "usage: kueuepp conformance [--kubeconfig FILE] [--crds DIR] DIR|FILE...\n"
    "  Replays every trace (*.json) in the given directories or files and prints\n"
    "  PASS/FAIL per trace. Without --kubeconfig a fresh embedded API server is started\n"
    "  with the CRDs of --crds (default ../shared/kueue-crds).\n";

struct ConformanceArgs {
  std::string kubeconfig;
  std::string crds = "../shared/kueue-crds";
  std::vector<std::string> inputs;
};

// Parses the arguments; nullopt after printing why they are wrong.
std::optional<ConformanceArgs> parse_args(Args args, bool& help) {
  ConformanceArgs out;
  FlagReader reader(args);
  while (const auto next = reader.next()) {
    const std::string_view arg = *next;
    auto value = [&](std::string& into) {
      auto taken = reader.value(into);
      if (!taken) std::fprintf(stderr, "kueuepp conformance: %s\n%s", taken.error().message.c_str(), kUsage);
      return static_cast<bool>(taken);
    };
    if (arg == "-h" || arg == "--help") {
      help = true;
      return std::nullopt;
    } else if (arg == "--kubeconfig") {
      if (!value(out.kubeconfig)) return std::nullopt;
    } else if (arg == "--crds") {
      if (!value(out.crds)) return std::nullopt;
    } else if (arg.starts_with("--")) {
      std::fprintf(stderr, "kueuepp conformance: unknown option %.*s\n%s",
                   static_cast<int>(arg.size()), arg.data(), kUsage);
      return std::nullopt;
    } else {
      out.inputs.emplace_back(arg);
    }
  }
  if (out.inputs.empty()) {
    std::fprintf(stderr, "kueuepp conformance: no trace directory or file given\n%s", kUsage);
    return std::nullopt;
  }
  return out;
}

// The server to replay against: the kubeconfig's, or a fresh embedded one (kept
// alive in `embedded` for the run).
Expected<kube::client::ClientConfig> target_server(
    const ConformanceArgs& args, std::unique_ptr<kube::server::ApiServer>& embedded) {
  if (!args.kubeconfig.empty()) {
    kube::client::KubeconfigLoadOptions options;
    options.explicit_path = args.kubeconfig;
    return kube::client::load_kubeconfig(options);
  }
  kube::server::ApiServerOptions options;
  options.listen = "127.0.0.1:0";
  options.crd_paths = {args.crds};
  auto server = kube::server::ApiServer::start(std::move(options));
  if (!server) {
    return fail("cannot start the embedded API server: " + server.error().message);
  }
  embedded = std::move(*server);
  kube::client::ClientConfig config;
  config.server = embedded->url();
  config.token = embedded->bearer_token();
  config.ca_pem = embedded->ca_certificate_pem();
  config.source = "embedded API server " + embedded->url();
  spdlog::info("replaying against a fresh embedded API server at {}", embedded->url());
  return config;
}

}  // namespace

int run_conformance(Args args) {
  bool help = false;
  auto parsed = parse_args(args, help);
  if (!parsed) {
    if (help) std::fputs(kUsage, stdout);
    return help ? 0 : 2;
  }
  auto files = kube::conformance::collect_trace_files(parsed->inputs);
  if (!files) {
    std::fprintf(stderr, "kueuepp conformance: %s\n", files.error().message.c_str());
    return 2;
  }

  std::unique_ptr<kube::server::ApiServer> embedded;
  auto config = target_server(*parsed, embedded);
  if (!config) {
    std::fprintf(stderr, "kueuepp conformance: %s\n", config.error().message.c_str());
    return 2;
  }
  auto client = kube::client::Client::create(
      *config, kube::conformance::ClientReplayTransport::replay_options());
  if (!client) {
    std::fprintf(stderr, "kueuepp conformance: %s\n", client.error().message.c_str());
    return 2;
  }

  kube::conformance::ClientReplayTransport transport(**client);
  const auto summary = kube::conformance::run_trace_files(
      *files, transport, [](const std::string& line) {
        std::fprintf(stdout, "%s\n", line.c_str());
        std::fflush(stdout);
      });

  (*client)->shutdown();
  if (embedded) embedded->stop();
  return summary.failed == 0 ? 0 : 1;
}

}  // namespace kueuepp::cmd
