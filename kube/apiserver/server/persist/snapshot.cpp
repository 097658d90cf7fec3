#include "kube/apiserver/server/persist/snapshot.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "kube/apiserver/server/persist/files.hpp"
#include "kube/apiserver/server/persist/record.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kSnapshot = "snapshot";

}  // namespace

Status write_snapshot(const std::string& dir, std::uint64_t rv, const std::vector<ObjectStore::BucketContents>& contents) {
  std::string path = dir + "/" + std::string(kSnapshot);
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(fmt::format("cannot create snapshot {}: {}", tmp, std::strerror(errno)));
  std::string buffer;
  encode_record(buffer, RecordType::SnapshotBegin, rv, "", "");
  Status st;
  for (const auto& bucket : contents) {
    for (const auto& obj : bucket.objects) {
      encode_record(buffer, RecordType::Put, obj->rv, bucket.name, obj->json);
      if (buffer.size() > (4u << 20)) {
        if (st = write_all(fd, buffer, tmp); !st) break;
        buffer.clear();
      }
    }
    if (!st) break;
  }
  if (st) {
    encode_record(buffer, RecordType::SnapshotEnd, rv, "", "");
    st = write_all(fd, buffer, tmp);
  }
  if (st && ::fsync(fd) != 0) st = fail(fmt::format("fsync of {} failed: {}", tmp, std::strerror(errno)));
  ::close(fd);
  if (!st) return st;
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return fail(fmt::format("cannot rename {} to {}: {}", tmp, path, ec.message()));
  return sync_directory(dir);
}

Expected<std::uint64_t> load_snapshot(const std::string& dir, ObjectStore& store) {
  std::string path = dir + "/" + std::string(kSnapshot);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::uint64_t{0};
  auto data = read_whole_file(path);
  if (!data) return unexpected(data.error());
  RecordReader reader(*data);
  auto begin = reader.next();
  if (!begin || begin->type != RecordType::SnapshotBegin) {
    return fail(fmt::format("snapshot {} is damaged (no header); restore the data directory from a backup", path));
  }
  std::uint64_t rv = begin->rv;
  bool ended = false;
  while (auto r = reader.next()) {
    if (r->type == RecordType::SnapshotEnd) {
      ended = true;
      break;
    }
    if (r->type != RecordType::Put) continue;
    auto doc = json::parse(r->body);
    if (!doc || !is_storable(*doc)) {
      return fail(fmt::format("snapshot {} is damaged (the record ending at offset {} is not a valid object); restore "
                              "the data directory from a backup",
                              path, reader.offset()));
    }
    store.restore(store.bucket(r->bucket), make_stored(std::move(*doc), r->rv));
  }
  if (!ended) {
    return fail(fmt::format("snapshot {} is damaged ({} at offset {}); restore the data directory from a backup", path,
                            reader.corrupt() ? reader.problem() : "no end marker", reader.offset()));
  }
  return rv;
}

}  // namespace kueuepp::kube::server
