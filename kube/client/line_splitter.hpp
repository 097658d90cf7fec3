#pragma once

// Splits a byte stream that arrives in arbitrary chunks into newline-terminated lines
// (a watch body: one JSON object per line; a line may span chunks, a chunk may hold
// many lines). Lines are handed out in place, followed by at least kPadding readable
// bytes, so simdjson can parse them without a copy (it reads SIMDJSON_PADDING = 64
// bytes past the end of its input).

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::client {

class LineSplitter {
 public:
  static constexpr std::size_t kPadding = 64;
  /// Receives one line without its "\n" (and without a trailing "\r"); empty lines are
  /// skipped. The view is valid only during the call.
  using LineSink = std::function<void(std::string_view line)>;

  explicit LineSplitter(std::size_t max_line_bytes = std::size_t{64} << 20);

  /// Appends a chunk and emits every line it completes. Fails (and drops the buffered
  /// bytes) when a line grows beyond max_line_bytes.
  Status feed(std::string_view chunk, const LineSink& sink);
  /// End of stream: emits the unterminated last line, if any.
  void finish(const LineSink& sink);
  /// Bytes buffered waiting for their "\n".
  std::size_t pending_bytes() const { return used_; }

 private:
  void emit(std::size_t begin, std::size_t end, const LineSink& sink);

  std::size_t max_line_bytes_;
  std::vector<char> buffer_;  // size() == used_ + kPadding, padding zero-filled
  std::size_t used_ = 0;
  std::size_t scanned_ = 0;   // bytes of [0, used_) already known to hold no "\n"
};

}  // namespace kueuepp::kube::client
