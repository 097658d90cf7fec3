// Fuzzes the watch-stream framing and event decoding: arbitrary bytes cut into
// arbitrary chunks. Besides "no crash, no sanitizer report", it checks that the events
// do not depend on where the chunks were cut (one chunk versus the fuzzer's cuts).

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kube/client/watch_event.hpp"

namespace {

using kueuepp::Expected;
using kueuepp::kube::client::WatchEvent;
using kueuepp::kube::client::WatchEventType;
using kueuepp::kube::client::WatchStreamDecoder;

// A comparable summary of one decoded line.
std::string summarize(const Expected<WatchEvent>& event) {
  if (!event) return "error";
  std::string out(kueuepp::kube::client::to_string(event->type));
  out += " ";
  out += kueuepp::json::dump(event->object);
  out += " rv=";
  out += event->resource_version();
  if (event->type == WatchEventType::Error) {
    const auto status = event->status_error("watch");
    out += " status=" + std::to_string(status.http_status) + status.reason;
    (void)status.is_gone();
    (void)status.describe();
  }
  return out;
}

std::vector<std::string> decode(const std::vector<std::string>& chunks, std::size_t max_line) {
  WatchStreamDecoder decoder(max_line);
  std::vector<std::string> events;
  auto sink = [&](Expected<WatchEvent> e) { events.push_back(summarize(e)); };
  for (const std::string& c : chunks) decoder.feed(c, sink);
  decoder.finish(sink);
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider provider(data, size);
  // The cut points come from the end of the input, the stream from the front.
  std::vector<std::size_t> cuts;
  const std::size_t n_cuts = provider.ConsumeIntegralInRange<std::size_t>(0, 16);
  for (std::size_t i = 0; i < n_cuts; ++i) cuts.push_back(provider.ConsumeIntegralInRange<std::size_t>(0, 64));
  const std::string stream = provider.ConsumeRemainingBytesAsString();

  std::vector<std::string> chunks;
  std::size_t pos = 0;
  for (std::size_t cut : cuts) {
    if (pos >= stream.size()) break;
    chunks.push_back(stream.substr(pos, cut));
    pos += cut;
  }
  if (pos < stream.size()) chunks.push_back(stream.substr(pos));

  const std::size_t unlimited = std::size_t{1} << 30;
  if (decode({stream}, unlimited) != decode(chunks, unlimited)) __builtin_trap();
  // A tiny line limit: errors are expected, crashes are not.
  (void)decode(chunks, 32);
  return 0;
}
