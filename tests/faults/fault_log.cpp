#include "tests/faults/fault_log.hpp"

#include <cerrno>
#include <cstring>

namespace kueuepp::faults {

std::string format_offset(std::chrono::milliseconds at) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "t=%lld.%03llds", static_cast<long long>(at.count() / 1000),
                static_cast<long long>(at.count() % 1000));
  return buf;
}

std::string FaultEvent::line() const {
  std::string out = "fault " + format_offset(at) + " rule=" + std::to_string(rule) +
                    " kind=" + std::string(fault_kind_name(kind)) + " method=" + method + " target=" + target;
  if (!detail.empty()) out += " detail=" + detail;
  return out;
}

Expected<std::unique_ptr<FaultLog>> FaultLog::open(const std::string& path) {
  if (path.empty()) return std::unique_ptr<FaultLog>(new FaultLog(stderr, false));
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return fail("cannot open fault log " + path + " for appending: " + std::strerror(errno) +
                "; check that its directory exists and is writable");
  }
  return std::unique_ptr<FaultLog>(new FaultLog(file, true));
}

FaultLog::~FaultLog() {
  if (owned_) std::fclose(file_);
}

void FaultLog::write(std::string_view line) {
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

}  // namespace kueuepp::faults
