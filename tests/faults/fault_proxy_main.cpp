// kueuepp-fault-proxy: the fault proxy as a process, for shell-driven end-to-end tests.
//
//   kueuepp-fault-proxy --listen 127.0.0.1:0 --upstream 127.0.0.1:PORT --plan FILE
//                       [--log FILE] [--port-file FILE] [--io-threads N]
//
// Writes the port it listens on to --port-file once listening (written to a temporary
// file and renamed, so a script polling for it never reads half a number), runs until
// SIGTERM or SIGINT, then prints its stats as one JSON line to stdout and exits 0.
// Bad arguments or a bad plan exit 2 with a message on stderr.

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "tests/faults/fault_proxy.hpp"

namespace {

using namespace kueuepp;
using namespace kueuepp::faults;

constexpr const char* kUsage =
    "usage: kueuepp-fault-proxy --upstream HOST:PORT [--listen HOST:PORT] [--plan FILE] [--log FILE]\n"
    "                           [--port-file FILE] [--io-threads N]\n"
    "  --upstream    the API server to forward to (plain HTTP)\n"
    "  --listen      where to listen (default 127.0.0.1:0, a free port)\n"
    "  --plan        JSON fault plan (default: none, a transparent proxy)\n"
    "  --log         fault log file, appended (default: stderr)\n"
    "  --port-file   write the listening port here once listening\n"
    "  --io-threads  threads serving connections (default 2)\n";

int usage_error(const std::string& message) {
  std::cerr << "kueuepp-fault-proxy: " << message << "\n" << kUsage;
  return 2;
}

bool split_host_port(std::string_view text, std::string& host, std::uint16_t& port) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view h = text.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  const std::string p(text.substr(colon + 1));
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) return false;
  const unsigned long value = std::stoul(p);
  if (value > 65535) return false;
  host = std::string(h);
  port = static_cast<std::uint16_t>(value);
  return true;
}

bool write_port_file(const std::string& path, std::uint16_t port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << "\n";
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  FaultProxyOptions options;
  std::string plan_path;
  std::string port_file;
  bool have_upstream = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (i + 1 >= argc) return usage_error(std::string(arg) + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--listen") {
      if (!split_host_port(value, options.listen_host, options.listen_port)) {
        return usage_error("--listen " + value + " is not HOST:PORT");
      }
    } else if (arg == "--upstream") {
      if (!split_host_port(value, options.upstream_host, options.upstream_port) || options.upstream_port == 0) {
        return usage_error("--upstream " + value + " is not HOST:PORT with a port above 0");
      }
      have_upstream = true;
    } else if (arg == "--plan") {
      plan_path = value;
    } else if (arg == "--log") {
      options.log_path = value;
    } else if (arg == "--port-file") {
      port_file = value;
    } else if (arg == "--io-threads") {
      options.io_threads = std::atoi(value.c_str());
      if (options.io_threads < 1 || options.io_threads > 64) return usage_error("--io-threads must be 1..64");
    } else {
      return usage_error("unknown argument " + std::string(arg));
    }
  }
  if (!have_upstream) return usage_error("--upstream is required");
  if (!plan_path.empty()) {
    auto plan = load_fault_plan(plan_path);
    if (!plan) {
      std::cerr << "kueuepp-fault-proxy: " << plan.error().message << "\n";
      return 2;
    }
    options.plan = std::move(*plan);
  }

  // Blocked before the io threads start, so that they inherit the mask and only
  // sigwait below receives the signals.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto proxy = FaultProxy::start(std::move(options));
  if (!proxy) {
    std::cerr << "kueuepp-fault-proxy: " << proxy.error().message << "\n";
    return 2;
  }
  if (!port_file.empty() && !write_port_file(port_file, (*proxy)->port())) {
    std::cerr << "kueuepp-fault-proxy: cannot write the port file " << port_file
              << "; check that its directory exists and is writable\n";
    (*proxy)->stop();
    return 2;
  }
  int received = 0;
  sigwait(&signals, &received);
  (*proxy)->stop();
  std::cout << (*proxy)->stats_json() << std::endl;
  return 0;
}
