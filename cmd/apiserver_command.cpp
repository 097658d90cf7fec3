// `kueuepp apiserver`: runs the embedded Kubernetes-compatible API server alone, writes a
// kubeconfig for kubectl, and stops cleanly on SIGINT/SIGTERM.

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "cmd/commands.hpp"
#include "cmd/flag_reader.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/server/api_server.hpp"

namespace kueuepp::cmd {
namespace {

constexpr const char* kUsage =
    "usage: kueuepp apiserver [--listen ADDR:PORT] [--data-dir DIR] [--kubeconfig-out FILE]\n"
    "                         [--crds PATH]... [--tls] [--token TOKEN] [--token-auth-file FILE]\n"
    "                         [--service-account-issuer URL] [--api-audiences A,B]\n"
    "                         [--service-account-signing-key-file FILE] [--service-account-key-file FILE]...\n"
    "                         [--no-fsync]\n"
    "                         [--watch-history N] [--max-requests-inflight N] [--max-mutating-requests-inflight N]\n"
    "                         [--audit-log FILE] [--log-level LEVEL]\n"
    "\n"
    "Runs the embedded Kubernetes-compatible API server.\n"
    "  --listen ADDR:PORT     address to serve on (default 127.0.0.1:6443; port 0 picks one)\n"
    "  --data-dir DIR         keep objects in DIR (write-ahead log + snapshots); memory only without it\n"
    "  --kubeconfig-out FILE  kubeconfig to write for kubectl (default ./kueuepp.kubeconfig)\n"
    "  --crds PATH            install the CustomResourceDefinitions in PATH (file or directory; repeatable)\n"
    "  --tls                  serve HTTPS with a generated CA and require a bearer token\n"
    "  --token TOKEN          the bearer token, system:masters (default with --tls: generated)\n"
    "  --token-auth-file FILE more users, as kube-apiserver's: CSV lines token,user,uid,\"group1,group2\";\n"
    "                         RBAC authorizes their requests (Roles, ClusterRoles and their bindings)\n"
    "  --client-ca-file FILE  with --tls: a client certificate signed by a CA in FILE (PEM) authenticates\n"
    "                         as its subject's CN, in the groups of its O entries; RBAC authorizes them\n"
    "  --service-account-issuer URL\n"
    "                         the iss of ServiceAccount tokens (`kubectl create token`; default\n"
    "                         https://kubernetes.default.svc.cluster.local)\n"
    "  --api-audiences A,B    audiences a ServiceAccount token must name to authenticate (default: the issuer)\n"
    "  --service-account-signing-key-file FILE\n"
    "                         PEM private key (RSA: RS256, EC P-256: ES256) that signs ServiceAccount tokens\n"
    "                         (default: DIR/pki/service-account.key with --data-dir, made on first start;\n"
    "                         else one made at start)\n"
    "  --service-account-key-file FILE\n"
    "                         PEM keys or certificates that also verify ServiceAccount tokens (repeatable)\n"
    "  --no-fsync             do not fsync the data directory (throwaway data only)\n"
    "  --watch-history N      changes kept for watches and consistent lists (default 25000)\n"
    "  --max-requests-inflight N, --max-mutating-requests-inflight N\n"
    "                         reads and writes of users outside system:masters in flight at once before\n"
    "                         429 (defaults 400 and 200, as kube-apiserver; 0: no limit; watches not counted)\n"
    "  --audit-log FILE       append one JSON line per resource request (verb, group, resource,\n"
    "                         subresource, namespace, name, userAgent, status) to FILE\n"
    "  --log-level LEVEL      trace, debug (request log), info (default), warn, error\n";

struct Flags {
  kube::server::ApiServerOptions options;
  std::string audit_log;
  std::string kubeconfig = "kueuepp.kubeconfig";
  std::string log_level = "info";
};

/// Parses the flags; returns an error message (empty when fine).
std::string parse(Args args, Flags& flags) {
  FlagReader reader(args);
  while (const auto next = reader.next()) {
    const std::string_view a = *next;
    std::string v;
    if (a == "--listen") {
      if (!reader.value(flags.options.listen)) return "--listen needs ADDR:PORT";
    } else if (a == "--data-dir") {
      if (!reader.value(flags.options.data_dir)) return "--data-dir needs a directory";
    } else if (a == "--kubeconfig-out") {
      if (!reader.value(flags.kubeconfig)) return "--kubeconfig-out needs a file name";
    } else if (a == "--crds") {
      if (!reader.value(v)) return "--crds needs a path";
      flags.options.crd_paths.push_back(v);
    } else if (a == "--tls") {
      flags.options.tls = true;
    } else if (a == "--token") {
      if (!reader.value(flags.options.bearer_token)) return "--token needs a value";
    } else if (a == "--token-auth-file") {
      if (!reader.value(flags.options.token_auth_file)) return "--token-auth-file needs a file";
    } else if (a == "--client-ca-file") {
      if (!reader.value(flags.options.client_ca_file)) return "--client-ca-file needs a file";
    } else if (a == "--service-account-issuer") {
      if (!reader.value(flags.options.service_account_issuer) || flags.options.service_account_issuer.empty()) {
        return "--service-account-issuer needs a URL";
      }
    } else if (a == "--api-audiences") {
      if (!reader.value(v)) return "--api-audiences needs a comma-separated list";
      flags.options.api_audiences.clear();
      for (std::size_t start = 0; start <= v.size();) {
        std::size_t comma = std::min(v.find(',', start), v.size());
        if (comma > start) flags.options.api_audiences.push_back(v.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (a == "--service-account-signing-key-file") {
      if (!reader.value(flags.options.service_account_signing_key_file)) return "--service-account-signing-key-file needs a file";
    } else if (a == "--service-account-key-file") {
      if (!reader.value(v)) return "--service-account-key-file needs a file";
      flags.options.service_account_key_files.push_back(v);
    } else if (a == "--no-fsync") {
      flags.options.fsync = false;
    } else if (a == "--watch-history") {
      if (!reader.value(v)) return "--watch-history needs a number";
      try {
        flags.options.watch_history = std::stoul(v);
      } catch (const std::exception&) {
        return "--watch-history needs a number, got \"" + v + "\"";
      }
    } else if (a == "--max-requests-inflight" || a == "--max-mutating-requests-inflight") {
      std::size_t& limit = a == "--max-requests-inflight" ? flags.options.max_requests_inflight
                                                           : flags.options.max_mutating_requests_inflight;
      if (!reader.value(v)) return std::string(a) + " needs a number";
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), limit);
      if (ec != std::errc() || end != v.data() + v.size()) {
        return std::string(a) + " needs a whole number (0: no limit), got \"" + v + "\"";
      }
    } else if (a == "--audit-log") {
      if (!reader.value(flags.audit_log)) return "--audit-log needs a file";
    } else if (a == "--log-level") {
      if (!reader.value(flags.log_level)) return "--log-level needs a level";
    } else {
      return "unknown argument \"" + std::string(a) + "\"";
    }
  }
  return {};
}

/// Appends every request as a JSON line, flushed at once (tests read the file while the
/// server runs). The observer runs on the server's io thread only: no lock needed.
std::function<void(const kube::server::ApiRequestRecord&)> audit_log_writer(std::FILE* out) {
  return [out](const kube::server::ApiRequestRecord& r) {
    json::object line{{"verb", r.verb},       {"group", r.group},         {"version", r.version},
                      {"resource", r.resource}, {"subresource", r.subresource}, {"namespace", r.ns},
                      {"name", r.name},       {"userAgent", r.user_agent}, {"status", r.status}};
    std::string text = json::dump(line);
    text += '\n';
    std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
  };
}

}  // namespace

int run_apiserver(Args args) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  Flags flags;
  if (std::string error = parse(args, flags); !error.empty()) {
    std::fprintf(stderr, "kueuepp apiserver: %s\n\n%s", error.c_str(), kUsage);
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(flags.log_level));

  // Block the stop signals before any thread starts, so they are delivered to sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> audit(nullptr, &std::fclose);
  if (!flags.audit_log.empty()) {
    audit.reset(std::fopen(flags.audit_log.c_str(), "a"));
    if (!audit) {
      std::fprintf(stderr, "kueuepp apiserver: cannot open the audit log %s: %s\n", flags.audit_log.c_str(),
                   std::strerror(errno));
      return 1;
    }
    flags.options.request_observer = audit_log_writer(audit.get());
  }
  auto server = kube::server::ApiServer::start(flags.options);
  if (!server) {
    std::fprintf(stderr, "kueuepp apiserver: %s\n", server.error().message.c_str());
    return 1;
  }
  if (auto st = (*server)->write_kubeconfig(flags.kubeconfig); !st) {
    std::fprintf(stderr, "kueuepp apiserver: %s\n", st.error().message.c_str());
    return 1;
  }
  spdlog::info("kubeconfig written to {} (kubectl --kubeconfig {} get ns)", flags.kubeconfig, flags.kubeconfig);

  int signal = 0;
  sigwait(&stop_signals, &signal);
  spdlog::info("received {}, stopping", signal == SIGINT ? "SIGINT" : "SIGTERM");
  (*server)->stop();
  // Everything to keep is written by now (stop closes the data directory's log; the audit
  // log is flushed line by line): the in-memory store goes back to the system with the
  // process. Destroying it object by object took longer than a kubelet's grace period
  // with a few hundred thousand objects (docs/performance.md).
  spdlog::shutdown();
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace kueuepp::cmd
