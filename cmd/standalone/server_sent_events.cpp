#include "cmd/standalone/server_sent_events.hpp"

namespace kueuepp::cmd {

namespace {

/// `text` with every line break removed: a field's value is one line.
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) out.push_back(c == '\r' || c == '\n' ? ' ' : c);
  return out;
}

}  // namespace

std::string sse_response_head() {
  return "HTTP/1.1 200 OK\r\n"
         "Content-Type: text/event-stream\r\n"
         "Cache-Control: no-cache\r\n"
         "Connection: close\r\n"
         "\r\n";
}

std::string sse_event(std::string_view event, std::string_view data) {
  std::string out;
  out.reserve(data.size() + event.size() + 32);
  if (!event.empty()) out += "event: " + one_line(event) + "\n";
  std::size_t start = 0;
  while (true) {
    std::size_t end = data.find_first_of("\r\n", start);
    out += "data: ";
    out.append(data.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    out += '\n';
    if (end == std::string_view::npos) break;
    start = end + (data[end] == '\r' && end + 1 < data.size() && data[end + 1] == '\n' ? 2 : 1);
  }
  out += '\n';
  return out;
}

std::string sse_comment(std::string_view text) { return ": " + one_line(text) + "\n\n"; }

}  // namespace kueuepp::cmd
