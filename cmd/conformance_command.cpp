// `kueuepp conformance [--kubeconfig FILE | --server URL [--token T]] [--crds DIR] DIR|FILE...`:
// replays recorded kube-apiserver traces (../shared/apiserver-conformance) against the
// server a kubeconfig or URL names, or against a fresh embedded API server started
// in-process. With `--record OUT_DIR` it records instead: the inputs are trace scripts,
// sent to the named (real) server, and written with its normalized answers.

#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cmd/commands.hpp"
#include "cmd/flag_reader.hpp"
#include "kube/client/client.hpp"
#include "kube/client/kubeconfig.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/conformance/client_transport.hpp"
#include "kube/apiserver/conformance/pretty_json.hpp"
#include "kube/apiserver/conformance/recorder.hpp"
#include "kube/apiserver/conformance/replayer.hpp"
#include "kube/apiserver/server/api_server.hpp"

namespace kueuepp::cmd {

namespace {

constexpr const char* kUsage =
    "usage: kueuepp conformance [--kubeconfig FILE | --server URL [--token T]] [--crds DIR]\n"
    "                           [--record OUT_DIR] DIR|FILE...\n"
    "  Replays every trace (*.json) in the given directories or files and prints\n"
    "  PASS/FAIL per trace. Without --kubeconfig or --server a fresh embedded API server\n"
    "  is started with the CRDs of --crds (default ../shared/kueue-crds).\n"
    "  --record OUT_DIR: the inputs are trace scripts (responses absent or ignored); each\n"
    "  is sent to the server of --kubeconfig/--server and written to OUT_DIR with the\n"
    "  server's normalized answers.\n";

struct ConformanceArgs {
  std::string kubeconfig;
  std::string server;
  std::string token;
  std::string record_dir;
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
    } else if (arg == "--server") {
      if (!value(out.server)) return std::nullopt;
    } else if (arg == "--token") {
      if (!value(out.token)) return std::nullopt;
    } else if (arg == "--record") {
      if (!value(out.record_dir)) return std::nullopt;
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
  if (!out.record_dir.empty() && out.kubeconfig.empty() && out.server.empty()) {
    std::fprintf(stderr, "kueuepp conformance: --record needs the server to record from "
                         "(--kubeconfig or --server)\n%s", kUsage);
    return std::nullopt;
  }
  return out;
}

// The server to replay against: the kubeconfig's, or a fresh embedded one (kept
// alive in `embedded` for the run).
Expected<kube::client::ClientConfig> target_server(
    const ConformanceArgs& args, std::unique_ptr<kube::server::ApiServer>& embedded) {
  if (!args.server.empty()) {
    kube::client::ClientConfig config;
    config.server = args.server;
    config.token = args.token;
    config.source = "--server " + args.server;
    return config;
  }
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

// "kube-apiserver v1.32.13", from the server's /version; empty when it does not say.
std::string server_version(kube::conformance::ReplayTransport& transport) {
  kube::client::HttpRequest request;
  request.method = "GET";
  request.target = "/version";
  request.headers = {{"Accept", "application/json"}};
  auto answer = transport.send(request);
  if (!answer || answer->status != 200) return {};
  auto doc = json::parse(answer->body);
  if (!doc) return {};
  const std::string_view version = json::get_string(*doc, "gitVersion");
  return version.empty() ? std::string() : "kube-apiserver " + std::string(version);
}

// Records each script into `out_dir` under its file name; 0 when all were recorded.
int record_scripts(const std::vector<std::string>& files, const std::string& out_dir,
                   kube::conformance::ReplayTransport& transport) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "kueuepp conformance: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 2;
  }
  const kube::conformance::RecordContext context{server_version(transport)};
  int failed = 0;
  for (const std::string& file : files) {
    auto script = kube::conformance::read_trace_file(file);
    auto recorded = script ? kube::conformance::record_trace(*script, file, transport, context)
                           : Expected<json::value>(unexpected(script.error()));
    if (!recorded) {
      ++failed;
      std::fprintf(stdout, "FAIL %s: %s\n", file.c_str(), recorded.error().message.c_str());
      continue;
    }
    const fs::path out = fs::path(out_dir) / fs::path(file).filename();
    std::ofstream(out, std::ios::binary) << kube::conformance::dump_pretty(*recorded);
    std::fprintf(stdout, "RECORDED %s\n", out.string().c_str());
    std::fflush(stdout);
  }
  std::fprintf(stdout, "%zu recorded, %d failed\n", files.size() - static_cast<std::size_t>(failed), failed);
  return failed == 0 ? 0 : 1;
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
  if (!parsed->record_dir.empty()) {
    const int rc = record_scripts(*files, parsed->record_dir, transport);
    (*client)->shutdown();
    return rc;
  }
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
