// `kueuepp apiserver --data-dir` killed with SIGKILL under a write load, then restarted on
// the same directory, again and again: every write it answered is there with what it
// said, nothing half-written is served, and the server comes back every time (a torn tail
// of the write-ahead log is truncated, with a warning naming it). The server runs as its
// own process, as it does in production, so the kill is a real one.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/client/kubeconfig.hpp"

extern char** environ;

namespace kueuepp::kube::client {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

/// A `kueuepp apiserver` process on a data directory; killed with SIGKILL or stopped.
class ServerProcess {
 public:
  ServerProcess(const std::string& data_dir, const std::string& kubeconfig, const std::string& log)
      : kubeconfig_(kubeconfig) {
    fs::remove(kubeconfig);
    std::vector<std::string> args = {KUEUEPP_BINARY, "apiserver",  "--listen", "127.0.0.1:0", "--data-dir",
                                     data_dir,       "--kubeconfig-out", kubeconfig};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const int rc = posix_spawn(&pid_, KUEUEPP_BINARY, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) pid_ = -1;
  }
  ~ServerProcess() { kill(SIGKILL); }

  bool started() const { return pid_ > 0; }

  /// The client configuration once the server wrote its kubeconfig (it does when serving).
  std::optional<ClientConfig> wait_serving(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (fs::exists(kubeconfig_) && fs::file_size(kubeconfig_) > 0) {
        KubeconfigLoadOptions o;
        o.explicit_path = kubeconfig_;
        if (auto config = load_kubeconfig(o)) return *config;
      }
      std::this_thread::sleep_for(20ms);
    }
    return std::nullopt;
  }

  void kill(int signal) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  std::string kubeconfig_;
  pid_t pid_ = -1;
};

Object config_map(const std::string& name, const std::string& value) {
  return Object(json::value(json::object{{"apiVersion", "v1"},
                                         {"kind", "ConfigMap"},
                                         {"metadata", json::object{{"name", name}, {"namespace", "default"}}},
                                         {"data", json::object{{"value", value}}}}));
}

TEST(ApiServerCrash, EveryAnsweredWriteSurvivesSigkillsUnderAWriteLoad) {
  const fs::path dir = fs::temp_directory_path() / ("kueuepp-crash-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "data");
  const std::string kubeconfig = (dir / "kc").string();
  const std::string log = (dir / "server.log").string();
  std::mt19937 rng(20261129);
  // name -> the value of the last answered write (creates, then updates of the same
  // objects: what an answered update said must survive too).
  std::map<std::string, std::string> answered;
  std::mutex answered_mutex;
  constexpr int kRounds = 6;
  constexpr int kWriters = 4;

  for (int round = 0; round < kRounds; ++round) {
    ServerProcess server((dir / "data").string(), kubeconfig, log);
    ASSERT_TRUE(server.started());
    auto config = server.wait_serving(30s);
    ASSERT_TRUE(config) << "round " << round << ": the server did not come back; its log:\n"
                        << std::ifstream(log).rdbuf();
    ClientOptions options;
    options.qps = -1;
    options.retry.max_retries = 0;  // a request to the killed server fails at once
    auto client = Client::create(*config, options);
    ASSERT_TRUE(client) << client.error().message;
    BlockingClient api(**client);

    // What the previous rounds were answered is all there, with the last value answered.
    auto listed = api.list(resources::kConfigMap, "default");
    ASSERT_TRUE(listed) << listed.error().describe();
    std::map<std::string, std::string> stored;
    for (const auto& item : listed->items) {
      ASSERT_FALSE(item.name().empty()) << "an object without a name is served";
      stored[std::string(item.name())] = std::string(item.string_at({"data", "value"}));
    }
    for (const auto& [name, value] : answered) {
      auto it = stored.find(name);
      ASSERT_NE(it, stored.end()) << "round " << round << ": answered write of " << name << " lost";
      // A later write of the same object may have landed without its answer: the value
      // stored is the answered one or a later one of the same writer (values count up).
      EXPECT_GE(std::stoi(it->second), std::stoi(value)) << name << " went back to an older value";
    }

    std::atomic<bool> stop{false};
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        for (int i = 0; !stop.load(); ++i) {
          const std::string name = "cm-" + std::to_string(round) + "-" + std::to_string(w) + "-" + std::to_string(i / 2);
          const std::string value = std::to_string(i);
          Result<Object> r = i % 2 == 0 ? api.create(resources::kConfigMap, config_map(name, value))
                                        : api.update(resources::kConfigMap, config_map(name, value));
          if (!r) {
            if (r.error().is_transport() || r.error().is_timeout() || r.error().is_cancelled()) return;
            continue;  // refused (e.g. an update of a create whose answer was lost): not answered
          }
          std::lock_guard lock(answered_mutex);
          answered[name] = value;
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(300, 900)(rng)));
    server.kill(SIGKILL);
    stop = true;
    for (auto& t : writers) t.join();
    (*client)->shutdown();
  }
  EXPECT_GT(answered.size(), 100u) << "the load was too light to mean anything";
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace kueuepp::kube::client
