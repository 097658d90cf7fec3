#pragma once

// File operations the data directory needs: whole-file reads, complete writes, fsync
// of files and directories, and the names of write-ahead log segments.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::kube::server {

Expected<std::string> read_whole_file(const std::string& path);
/// Writes all of `data` to `fd` (retrying short writes). The error names `what`.
Status write_all(int fd, std::string_view data, std::string_view what);
/// fsync of the directory, so that created, renamed and removed entries are durable.
Status sync_directory(const std::string& dir);

/// "wal-0000000000000007.log"
std::string segment_name(std::uint64_t seq);
/// The segments in `dir`, by sequence number.
std::vector<std::pair<std::uint64_t, std::string>> list_segments(const std::string& dir);

}  // namespace kueuepp::kube::server
