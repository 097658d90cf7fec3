#pragma once

// The on-disk record format shared by write-ahead log segments and snapshots:
//
//   u32 length of payload | u32 CRC-32C of payload | payload
//   payload = u8 type | u64 resourceVersion | u16 bucket length | bucket | body
//
// (little endian). Body: the object's JSON for Put, its store key for Delete, nothing
// for the snapshot's Begin/End markers. A record is valid only when complete and its
// checksum matches, so a write torn by a crash is recognized at its first byte.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kueuepp::kube::server {

enum class RecordType : std::uint8_t { Put = 1, Delete = 2, SnapshotBegin = 3, SnapshotEnd = 4 };

struct Record {
  RecordType type = RecordType::Put;
  std::uint64_t rv = 0;
  std::string_view bucket;
  std::string_view body;
};

/// Appends the encoded record to `out`.
void encode_record(std::string& out, RecordType type, std::uint64_t rv, std::string_view bucket, std::string_view body);

/// Reads records from a buffer. next() returns nullopt at the end or at the first
/// incomplete or corrupt record; `offset()` is then where the valid prefix ends and
/// `corrupt()` tells the two apart.
class RecordReader {
 public:
  explicit RecordReader(std::string_view data) : data_(data) {}
  std::optional<Record> next();
  std::size_t offset() const { return offset_; }
  bool corrupt() const { return corrupt_; }
  std::string_view problem() const { return problem_; }

 private:
  std::string_view data_;
  std::size_t offset_ = 0;
  bool corrupt_ = false;
  std::string_view problem_;
};

}  // namespace kueuepp::kube::server
