#pragma once

// The fault log: one line per injected fault (time since the proxy started, rule index,
// kind, method, target, what was done), plus a few notes (the plan at start, outages
// ending, upstream failures), so that a failing test can be read and replayed.

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "tests/faults/fault_plan.hpp"

namespace kueuepp::faults {

struct FaultEvent {
  std::chrono::milliseconds at{0};  ///< since the proxy started
  std::size_t rule = 0;
  FaultKind kind = FaultKind::status;
  std::string method;  ///< "-" for connection-level faults (blackout)
  std::string target;  ///< path and query, "-" for connection-level faults
  std::string detail;

  /// `fault t=12.345s rule=2 kind=drop_answer method=PATCH target=/apis/... detail=...`
  std::string line() const;
};

/// `t=12.345s` for a time since the proxy started.
std::string format_offset(std::chrono::milliseconds at);

/// Lines to a file (appended) or to stderr; each line is written and flushed whole, under
/// a lock, so lines of concurrent connections never interleave.
class FaultLog {
 public:
  /// Empty path: stderr. The error names the file that could not be opened.
  static Expected<std::unique_ptr<FaultLog>> open(const std::string& path);
  ~FaultLog();
  FaultLog(const FaultLog&) = delete;
  FaultLog& operator=(const FaultLog&) = delete;

  void write(std::string_view line);

 private:
  FaultLog(std::FILE* file, bool owned) : file_(file), owned_(owned) {}
  std::mutex mutex_;
  std::FILE* file_;
  bool owned_;
};

}  // namespace kueuepp::faults
