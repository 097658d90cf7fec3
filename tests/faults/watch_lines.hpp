#pragma once

// Splits a watch body (JSON event lines, in chunks of any size) into whole lines, so the
// proxy can count, hold back or cut events at line boundaries.

#include <string>
#include <string_view>
#include <vector>

namespace kueuepp::faults {

class WatchLineSplitter {
 public:
  /// Appends `data`; every line it completes (with its '\n') is appended to `lines`.
  void feed(std::string_view data, std::vector<std::string>& lines);
  /// The incomplete last line, if any (the stream ended without a newline).
  std::string take_rest();

  /// An event line carries something besides whitespace (blank lines are not events).
  static bool is_event(std::string_view line);

 private:
  std::string partial_;
};

}  // namespace kueuepp::faults
