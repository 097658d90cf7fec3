#include "cmd/perf/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace kueuepp::cmd::perf {

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\n') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

template <class T>
std::optional<T> to_int(std::string_view s, int base = 10) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::int64_t ticks_to_ms(std::int64_t ticks) {
  static const long hz = ::sysconf(_SC_CLK_TCK);
  return hz > 0 ? ticks * 1000 / hz : ticks * 10;
}

}  // namespace

Expected<std::pair<std::int64_t, std::int64_t>> parse_proc_stat_times(std::string_view stat) {
  auto close = stat.rfind(')');
  if (close == std::string_view::npos) return fail("unreadable /proc stat line");
  auto fields = split_ws(stat.substr(close + 1));
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  if (fields.size() < 13) return fail("short /proc stat line");
  auto utime = to_int<std::int64_t>(fields[11]);
  auto stime = to_int<std::int64_t>(fields[12]);
  if (!utime || !stime) return fail("unreadable utime/stime in /proc stat line");
  return std::make_pair(*utime, *stime);
}

std::optional<std::int64_t> parse_proc_status_kib(std::string_view status, std::string_view key) {
  std::size_t pos = 0;
  while (pos < status.size()) {
    std::size_t end = status.find('\n', pos);
    if (end == std::string_view::npos) end = status.size();
    std::string_view line = status.substr(pos, end - pos);
    pos = end + 1;
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
      auto fields = split_ws(line.substr(key.size() + 1));
      if (fields.empty()) return std::nullopt;
      return to_int<std::int64_t>(fields[0]);
    }
  }
  return std::nullopt;
}

namespace {

/// What /proc tells of a process besides its cpu time: memory and threads from its own
/// status (`status`, the text of `proc`/status), context switches added up over the
/// status of every thread under `proc` ("/proc/PID" or "/proc/self"), since the process's
/// own status counts only its main thread's.
void read_proc_figures(const std::string& proc, std::string_view status, ProcessUsage& u) {
  u.peak_rss_kib = parse_proc_status_kib(status, "VmHWM").value_or(0);
  u.rss_kib = parse_proc_status_kib(status, "VmRSS").value_or(0);
  u.threads = parse_proc_status_kib(status, "Threads").value_or(0);
  std::error_code ec;
  for (std::filesystem::directory_iterator it(proc + "/task", ec), end; !ec && it != end; it.increment(ec)) {
    std::string thread_status = read_all(it->path().string() + "/status");
    u.voluntary_switches += parse_proc_status_kib(thread_status, "voluntary_ctxt_switches").value_or(0);
    u.involuntary_switches += parse_proc_status_kib(thread_status, "nonvoluntary_ctxt_switches").value_or(0);
  }
}

}  // namespace

Expected<ProcessUsage> read_process_usage(pid_t pid) {
  std::string base = "/proc/" + std::to_string(pid);
  std::string stat = read_all(base + "/stat");
  std::string status = read_all(base + "/status");
  if (stat.empty() || status.empty()) return fail("cannot read " + base + " (process gone?)");
  auto times = parse_proc_stat_times(stat);
  if (!times) return fail(times.error().message);
  ProcessUsage u;
  u.user_ms = ticks_to_ms(times->first);
  u.system_ms = ticks_to_ms(times->second);
  read_proc_figures(base, status, u);
  return u;
}

ProcessUsage self_usage() {
  ProcessUsage u;
  rusage r{};
  if (::getrusage(RUSAGE_SELF, &r) == 0) {
    u.user_ms = static_cast<std::int64_t>(r.ru_utime.tv_sec) * 1000 + r.ru_utime.tv_usec / 1000;
    u.system_ms = static_cast<std::int64_t>(r.ru_stime.tv_sec) * 1000 + r.ru_stime.tv_usec / 1000;
  }
  read_proc_figures("/proc/self", read_all("/proc/self/status"), u);
  return u;
}

std::vector<std::uint16_t> listening_ports(pid_t pid) {
  namespace fs = std::filesystem;
  std::string base = "/proc/" + std::to_string(pid);
  std::set<std::string> inodes;
  std::error_code ec;
  for (fs::directory_iterator it(base + "/fd", ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code lec;
    auto target = fs::read_symlink(it->path(), lec);
    if (lec) continue;
    std::string t = target.string();
    if (t.rfind("socket:[", 0) == 0 && t.back() == ']') inodes.insert(t.substr(8, t.size() - 9));
  }
  std::set<std::uint16_t> ports;
  for (const char* table : {"/net/tcp", "/net/tcp6"}) {
    std::string text = read_all(base + table);
    std::size_t pos = text.find('\n');  // skip the header
    while (pos != std::string::npos && pos + 1 < text.size()) {
      std::size_t end = text.find('\n', pos + 1);
      std::string_view line(text.data() + pos + 1, (end == std::string::npos ? text.size() : end) - pos - 1);
      pos = end;
      auto f = split_ws(line);
      if (f.size() < 10 || f[3] != "0A") continue;  // 0A: LISTEN
      if (!inodes.contains(std::string(f[9]))) continue;
      auto colon = f[1].rfind(':');
      if (colon == std::string_view::npos) continue;
      if (auto port = to_int<std::uint16_t>(f[1].substr(colon + 1), 16)) ports.insert(*port);
    }
  }
  return {ports.begin(), ports.end()};
}

std::string tail_file(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  if (!in) return {};
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += "    " + l + "\n";
  return out;
}

Expected<std::unique_ptr<ChildProcess>> ChildProcess::spawn(std::string name, const std::string& exe,
                                                            const std::vector<std::string>& args,
                                                            const std::string& log_path) {
  int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return fail("cannot create " + log_path + ": " + std::strerror(errno));
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  // Everything the child needs is prepared before fork: after it only async-signal-safe
  // calls are allowed (this process has threads).
  std::vector<std::string> argv_storage;
  argv_storage.push_back(exe);
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  static constexpr char kExecFailed[] = "kueuepp perf: exec failed\n";

  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    return fail("fork failed: " + std::string(std::strerror(err)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    // Sockets and files of the parent's threads must not leak into the child.
    if (::syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
      for (int fd = 3; fd < 4096; ++fd) ::close(fd);
    }
    ::execv(argv[0], argv.data());
    ssize_t ignored = ::write(2, kExecFailed, sizeof(kExecFailed) - 1);
    (void)ignored;
    ::_exit(127);
  }
  ::close(log_fd);
  if (null_fd >= 0) ::close(null_fd);
  ::setpgid(pid, pid);  // also from the parent, so it holds before we signal the group
  return std::unique_ptr<ChildProcess>(new ChildProcess(std::move(name), pid, log_path));
}

ChildProcess::ChildProcess(std::string name, pid_t pid, std::string log_path)
    : name_(std::move(name)), pid_(pid), log_path_(std::move(log_path)), started_at_(std::chrono::steady_clock::now()) {}

ChildProcess::~ChildProcess() {
  if (!exited_) stop();
}

void ChildProcess::reaped(int wait_status) {
  exited_ = true;
  wait_status_ = wait_status;
  ended_at_ = std::chrono::steady_clock::now();
}

bool ChildProcess::running() {
  if (exited_) return false;
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    reaped(st);
    return false;
  }
  return true;
}

std::string ChildProcess::exit_description() const {
  if (!exited_) return "running";
  if (WIFEXITED(wait_status_)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) {
    int sig = WTERMSIG(wait_status_);
    const char* what = ::strsignal(sig);
    return "killed by signal " + std::to_string(sig) + (what ? std::string(" (") + what + ")" : std::string());
  }
  return "ended";
}

bool ChildProcess::ended_cleanly() const {
  if (!exited_) return false;
  if (WIFEXITED(wait_status_)) return WEXITSTATUS(wait_status_) == 0;
  return terminated_by_us_ && WIFSIGNALED(wait_status_) && WTERMSIG(wait_status_) == SIGTERM;
}

std::string ChildProcess::stop(std::chrono::milliseconds grace) {
  if (!running()) return exit_description();
  terminated_by_us_ = true;
  ::kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!running()) return exit_description();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  int st = 0;
  while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  reaped(st);
  return exit_description() + " (did not stop within " + std::to_string(grace.count()) + " ms of SIGTERM)";
}

}  // namespace kueuepp::cmd::perf
