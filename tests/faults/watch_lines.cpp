#include "tests/faults/watch_lines.hpp"

#include <utility>

namespace kueuepp::faults {

void WatchLineSplitter::feed(std::string_view data, std::vector<std::string>& lines) {
  while (!data.empty()) {
    const auto nl = data.find('\n');
    if (nl == std::string_view::npos) {
      partial_.append(data);
      return;
    }
    partial_.append(data.substr(0, nl + 1));
    lines.push_back(std::exchange(partial_, std::string()));
    data.remove_prefix(nl + 1);
  }
}

std::string WatchLineSplitter::take_rest() { return std::exchange(partial_, std::string()); }

bool WatchLineSplitter::is_event(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return true;
  }
  return false;
}

}  // namespace kueuepp::faults
