#include "kube/apiserver/server/persist/files.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace kueuepp::kube::server {

Expected<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Status write_all(int fd, std::string_view data, std::string_view what) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(fmt::format("writing {} failed: {}", what, std::strerror(errno)));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Status sync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return fail(fmt::format("cannot open directory {}: {}", dir, std::strerror(errno)));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return fail(fmt::format("fsync of directory {} failed: {}", dir, std::strerror(err)));
  return {};
}

std::string segment_name(std::uint64_t seq) { return fmt::format("wal-{:016}.log", seq); }

std::vector<std::pair<std::uint64_t, std::string>> list_segments(const std::string& dir) {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() != 24 || name.rfind("wal-", 0) != 0 || name.substr(20) != ".log") continue;
    std::uint64_t seq = 0;
    auto [p, e] = std::from_chars(name.data() + 4, name.data() + 20, seq);
    if (e != std::errc() || p != name.data() + 20) continue;
    out.emplace_back(seq, entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kueuepp::kube::server
