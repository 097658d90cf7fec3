#pragma once

// Child processes of the perf command (the API server and the controller, started from
// /proc/self/exe) and what /proc says about them: cpu time, peak RSS, listening ports.
//
// A child runs in its own process group (a terminal's Ctrl-C reaches only the perf
// command, which then stops its children in order), gets SIGTERM if the perf command
// dies (PR_SET_PDEATHSIG), and writes stdout and stderr to a log file.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::cmd::perf {

struct ProcessUsage {
  std::int64_t user_ms = 0;
  std::int64_t system_ms = 0;
  std::int64_t peak_rss_kib = 0;  ///< VmHWM
  std::int64_t rss_kib = 0;       ///< VmRSS
  std::int64_t threads = 0;
  /// Context switches summed over the threads alive when read (a thread that ended took
  /// its count with it). Voluntary: a thread blocked (waiting for work, I/O or a lock);
  /// involuntary: it was preempted.
  std::int64_t voluntary_switches = 0;
  std::int64_t involuntary_switches = 0;

  std::int64_t cpu_ms() const { return user_ms + system_ms; }
};

/// utime and stime (fields 14 and 15) of a /proc/PID/stat line, in clock ticks.
Expected<std::pair<std::int64_t, std::int64_t>> parse_proc_stat_times(std::string_view stat);
/// A `Key:   123 kB` line's number from /proc/PID/status text (nullopt when absent).
std::optional<std::int64_t> parse_proc_status_kib(std::string_view status, std::string_view key);

/// /proc/<pid>/stat and /proc/<pid>/status.
Expected<ProcessUsage> read_process_usage(pid_t pid);
/// This process's own usage (getrusage: cpu time; /proc/self/status: peak RSS).
ProcessUsage self_usage();

/// TCP ports `pid` listens on (its socket inodes matched against /proc/net/tcp{,6}).
std::vector<std::uint16_t> listening_ports(pid_t pid);

/// The last `lines` lines of a text file ("" when unreadable).
std::string tail_file(const std::string& path, std::size_t lines);

class ChildProcess {
 public:
  /// fork + exec of `exe` with `args` (argv[1..]); stdout and stderr go to `log_path`.
  static Expected<std::unique_ptr<ChildProcess>> spawn(std::string name, const std::string& exe,
                                                       const std::vector<std::string>& args, const std::string& log_path);
  /// Stops the process (stop()) if it still runs.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  std::chrono::steady_clock::time_point started_at() const { return started_at_; }
  std::chrono::steady_clock::time_point ended_at() const { return ended_at_; }

  /// False once it has exited (and was reaped); exit_description() then says how.
  bool running();
  /// "exited with status N" / "killed by signal N" / "running".
  std::string exit_description() const;
  /// Exit status 0 or ended by the SIGTERM we sent.
  bool ended_cleanly() const;

  /// SIGTERM, up to `grace` for it to exit, then SIGKILL. Returns exit_description().
  std::string stop(std::chrono::milliseconds grace = std::chrono::seconds(15));

 private:
  ChildProcess(std::string name, pid_t pid, std::string log_path);
  void reaped(int wait_status);

  std::string name_;
  pid_t pid_ = -1;
  std::string log_path_;
  std::chrono::steady_clock::time_point started_at_;
  std::chrono::steady_clock::time_point ended_at_;
  bool exited_ = false;
  int wait_status_ = 0;
  bool terminated_by_us_ = false;
};

}  // namespace kueuepp::cmd::perf
