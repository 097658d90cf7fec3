#include "kube/client/line_splitter.hpp"

#include <cstring>

namespace kueuepp::kube::client {

LineSplitter::LineSplitter(std::size_t max_line_bytes)
    : max_line_bytes_(max_line_bytes), buffer_(kPadding, '\0') {}

void LineSplitter::emit(std::size_t begin, std::size_t end, const LineSink& sink) {
  if (end > begin && buffer_[end - 1] == '\r') --end;
  if (end > begin) sink(std::string_view(buffer_.data() + begin, end - begin));
}

Status LineSplitter::feed(std::string_view chunk, const LineSink& sink) {
  if (chunk.empty()) return {};
  buffer_.resize(used_ + chunk.size() + kPadding, '\0');
  std::memcpy(buffer_.data() + used_, chunk.data(), chunk.size());
  used_ += chunk.size();
  // Keep the padding zeroed: resize only zero-fills new elements.
  std::memset(buffer_.data() + used_, 0, kPadding);

  std::size_t line_start = 0;
  std::size_t pos = scanned_;
  while (pos < used_) {
    const void* nl = std::memchr(buffer_.data() + pos, '\n', used_ - pos);
    if (nl == nullptr) break;
    const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.data());
    emit(line_start, end, sink);
    line_start = end + 1;
    pos = line_start;
  }
  if (line_start > 0) {
    std::memmove(buffer_.data(), buffer_.data() + line_start, used_ - line_start);
    used_ -= line_start;
    buffer_.resize(used_ + kPadding);
    std::memset(buffer_.data() + used_, 0, kPadding);
  }
  scanned_ = used_;
  if (used_ > max_line_bytes_) {
    const std::size_t size = used_;
    used_ = 0;
    scanned_ = 0;
    buffer_.assign(kPadding, '\0');
    buffer_.shrink_to_fit();
    return fail("watch stream line exceeds " + std::to_string(max_line_bytes_) + " bytes (" +
                std::to_string(size) + " buffered without a newline)");
  }
  return {};
}

void LineSplitter::finish(const LineSink& sink) {
  emit(0, used_, sink);
  used_ = 0;
  scanned_ = 0;
  buffer_.assign(kPadding, '\0');
}

}  // namespace kueuepp::kube::client
