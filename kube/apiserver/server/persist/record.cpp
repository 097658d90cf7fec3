#include "kube/apiserver/server/persist/record.hpp"

#include <cstring>

#include "kube/apiserver/server/persist/crc32c.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::size_t kHeader = 8;                  // length + crc
constexpr std::size_t kFixedPayload = 1 + 8 + 2;    // type + rv + bucket length
constexpr std::uint32_t kMaxPayload = 256u << 20;   // sanity bound against garbage lengths

template <class T>
void put_le(std::string& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

template <class T>
T get_le(std::string_view s, std::size_t pos) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<unsigned char>(s[pos + i])) << (8 * i);
  return v;
}

}  // namespace

void encode_record(std::string& out, RecordType type, std::uint64_t rv, std::string_view bucket, std::string_view body) {
  std::size_t start = out.size();
  out.resize(start + kHeader);
  std::size_t payload_start = out.size();
  out.push_back(static_cast<char>(type));
  put_le<std::uint64_t>(out, rv);
  put_le<std::uint16_t>(out, static_cast<std::uint16_t>(bucket.size()));
  out.append(bucket);
  out.append(body);
  std::string_view payload(out.data() + payload_start, out.size() - payload_start);
  std::string header;
  put_le<std::uint32_t>(header, static_cast<std::uint32_t>(payload.size()));
  put_le<std::uint32_t>(header, crc32c(payload));
  std::memcpy(out.data() + start, header.data(), kHeader);
}

std::optional<Record> RecordReader::next() {
  if (offset_ == data_.size()) return std::nullopt;
  auto stop = [this](std::string_view why) -> std::optional<Record> {
    corrupt_ = true;
    problem_ = why;
    return std::nullopt;
  };
  if (data_.size() - offset_ < kHeader) return stop("incomplete record header");
  auto length = get_le<std::uint32_t>(data_, offset_);
  auto crc = get_le<std::uint32_t>(data_, offset_ + 4);
  if (length < kFixedPayload || length > kMaxPayload) return stop("impossible record length");
  if (data_.size() - offset_ - kHeader < length) return stop("incomplete record");
  std::string_view payload = data_.substr(offset_ + kHeader, length);
  if (crc32c(payload) != crc) return stop("checksum mismatch");
  auto type = static_cast<RecordType>(payload[0]);
  if (type < RecordType::Put || type > RecordType::SnapshotEnd) return stop("unknown record type");
  auto bucket_len = get_le<std::uint16_t>(payload, 9);
  if (kFixedPayload + bucket_len > length) return stop("bucket name overruns the record");
  Record r;
  r.type = type;
  r.rv = get_le<std::uint64_t>(payload, 1);
  r.bucket = payload.substr(kFixedPayload, bucket_len);
  r.body = payload.substr(kFixedPayload + bucket_len);
  offset_ += kHeader + length;
  return r;
}

}  // namespace kueuepp::kube::server
