#include "actors/cpu_affinity.hpp"

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

namespace kueuepp::actors {

namespace {

double seconds_of(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// The thread ids of the process (/proc/self/task), or an error.
Expected<std::vector<int>> thread_ids() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return fail(std::string("cannot list /proc/self/task: ") + std::strerror(errno));
  std::vector<int> tids;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    long tid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && tid > 0) tids.push_back(static_cast<int>(tid));
  }
  closedir(dir);
  return tids;
}

/// Idle time (idle + iowait) of each CPU in `cpus`, from /proc/stat.
Expected<std::vector<double>> idle_seconds_of(const std::vector<int>& cpus) {
  std::ifstream in("/proc/stat");
  if (!in) return fail("cannot read /proc/stat");
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  std::vector<double> idle(cpus.size(), -1.0);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    unsigned long long user = 0, nice = 0, system = 0, idle_ticks = 0, iowait = 0;
    if (!(fields >> cpu >> user >> nice >> system >> idle_ticks >> iowait)) continue;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      if (cpus[i] == cpu) idle[i] = static_cast<double>(idle_ticks + iowait) / tick;
    }
  }
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    if (idle[i] < 0) return fail("/proc/stat has no line for CPU " + std::to_string(cpus[i]));
  }
  return idle;
}

cpu_set_t mask_of(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  return set;
}

std::vector<int> cpus_of(const cpu_set_t& set) {
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace

Expected<std::vector<int>> allowed_cpus() { return thread_cpus(0); }

Expected<std::vector<int>> thread_cpus(int tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0) {
    return fail("cannot read the CPUs of thread " + std::to_string(tid) + ": " + std::strerror(errno));
  }
  return cpus_of(set);
}

Expected<CpuCounters> read_cpu_counters(const std::vector<int>& cpus) {
  CpuCounters c;
  c.monotonic_seconds = seconds_of(CLOCK_MONOTONIC);
  c.process_cpu_seconds = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
  auto idle = idle_seconds_of(cpus);
  if (!idle) return unexpected(idle.error());
  c.idle_seconds = std::move(*idle);
  return c;
}

CpuWindow window_between(const CpuCounters& earlier, const CpuCounters& later) {
  CpuWindow w;
  w.seconds = later.monotonic_seconds - earlier.monotonic_seconds;
  w.cpu_seconds = later.process_cpu_seconds - earlier.process_cpu_seconds;
  if (earlier.idle_seconds.size() == later.idle_seconds.size()) {
    for (std::size_t i = 0; i < later.idle_seconds.size(); ++i) {
      w.idle_seconds.push_back(later.idle_seconds[i] - earlier.idle_seconds[i]);
    }
  }
  return w;
}

Status set_process_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return fail("no CPU to place the controller's threads on");
  auto tids = thread_ids();
  if (!tids) return unexpected(tids.error());
  const cpu_set_t set = mask_of(cpus);
  for (int tid : *tids) {
    if (sched_setaffinity(tid, sizeof set, &set) == 0 || errno == ESRCH) continue;
    return fail("cannot set the CPUs of thread " + std::to_string(tid) + ": " + std::strerror(errno) +
                " (run with --cpu-placement spread to leave placement to the kernel)");
  }
  return {};
}

}  // namespace kueuepp::actors
