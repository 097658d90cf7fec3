#include "kube/apiserver/server/persist/durable_store.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <boost/asio/post.hpp>
#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include "kube/apiserver/server/persist/files.hpp"
#include "kube/apiserver/server/persist/record.hpp"
#include "kube/apiserver/server/persist/snapshot.hpp"

namespace kueuepp::kube::server {

namespace fs = std::filesystem;

Expected<std::unique_ptr<DurableStore>> DurableStore::open(const std::string& dir, boost::asio::io_context& io,
                                                           bool fsync) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(fmt::format("cannot create data directory {}: {}", dir, ec.message()));
  std::string lock_path = dir + "/LOCK";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return fail(fmt::format("cannot open {}: {}", lock_path, std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return fail(fmt::format("data directory {} is in use by another kueuepp (its LOCK is held); stop it or use "
                            "another --data-dir",
                            dir));
  }
  return std::unique_ptr<DurableStore>(new DurableStore(dir, io, fsync, fd));
}

DurableStore::DurableStore(std::string dir, boost::asio::io_context& io, bool fsync, int lock_fd)
    : dir_(std::move(dir)), io_(io), fsync_(fsync), lock_fd_(lock_fd) {}

DurableStore::~DurableStore() { close(); }

Status DurableStore::open_segment(std::uint64_t seq) {
  std::string path = dir_ + "/" + segment_name(seq);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return fail(fmt::format("cannot open write-ahead log {}: {}", path, std::strerror(errno)));
  if (segment_fd_ >= 0) ::close(segment_fd_);
  segment_fd_ = fd;
  segment_seq_ = seq;
  return sync_directory(dir_);
}

Status DurableStore::recover(ObjectStore& store) {
  store_ = &store;
  auto snapshot_rv = load_snapshot(dir_, store);
  if (!snapshot_rv) return unexpected(snapshot_rv.error());
  std::uint64_t max_rv = *snapshot_rv;
  std::size_t replayed = 0;
  auto segments = list_segments(dir_);
  std::uint64_t last_seq = 0;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const auto& [seq, path] = segments[i];
    last_seq = seq;
    auto data = read_whole_file(path);
    if (!data) return unexpected(data.error());
    RecordReader reader(*data);
    bool bad_body = false;
    std::size_t good_offset = 0;
    while (auto r = reader.next()) {
      if (r->rv > *snapshot_rv) {
        if (r->type == RecordType::Put) {
          auto doc = json::parse(r->body);
          if (!doc || !is_storable(*doc)) {
            bad_body = true;
            break;
          }
          store.restore(store.bucket(r->bucket), make_stored(std::move(*doc), r->rv));
        } else if (r->type == RecordType::Delete) {
          store.restore_remove(store.bucket(r->bucket), r->body);
        }
        max_rv = std::max(max_rv, r->rv);
        ++replayed;
      }
      good_offset = reader.offset();
    }
    if (!reader.corrupt() && !bad_body) continue;
    std::size_t dropped = data->size() - good_offset;
    spdlog::warn("write-ahead log {}: {} at offset {} (a write torn by a crash); truncating it there ({} bytes dropped)",
                 path, bad_body ? "an unreadable object" : reader.problem(), good_offset, dropped);
    if (::truncate(path.c_str(), static_cast<off_t>(good_offset)) != 0) {
      return fail(fmt::format("cannot truncate {}: {}", path, std::strerror(errno)));
    }
    for (std::size_t j = i + 1; j < segments.size(); ++j) {
      std::string aside = segments[j].second + ".corrupt";
      spdlog::error("write-ahead log {} follows a damaged segment and cannot be applied; moved to {}",
                    segments[j].second, aside);
      std::error_code ec;
      fs::rename(segments[j].second, aside, ec);
    }
    break;
  }
  store.restore_rv(std::max<std::uint64_t>(max_rv, 1));
  spdlog::info("data directory {}: recovered resourceVersion {} (snapshot at {}, {} changes replayed)", dir_,
               store.current_rv(), *snapshot_rv, replayed);
  if (auto st = open_segment(last_seq + 1); !st) return st;
  log_thread_ = std::thread([this] { run(); });
  return {};
}

void DurableStore::append(const Change& change, std::function<void()> durable) {
  const std::string& bucket = store_->bucket_name(change.bucket);
  std::size_t added = 0;
  {
    std::lock_guard lock(mutex_);
    std::size_t before = pending_.size();
    if (change.type == ChangeType::Deleted) {
      encode_record(pending_, RecordType::Delete, change.rv, bucket, change.object->key);
    } else {
      encode_record(pending_, RecordType::Put, change.rv, bucket, change.object->json);
    }
    added = pending_.size() - before;
    pending_callbacks_.push_back(std::move(durable));
  }
  wake_.notify_one();
  ++records_since_snapshot_;
  bytes_since_snapshot_ += added;
  maybe_snapshot();
}

void DurableStore::maybe_snapshot() {
  if (records_since_snapshot_ < kSnapshotEveryRecords && bytes_since_snapshot_ < kSnapshotEveryBytes) return;
  std::lock_guard lock(mutex_);
  if (pending_rotation_) return;
  // Cut here: everything appended so far is in the snapshot; what follows goes to the
  // next segment. The copy shares the (immutable) object versions.
  pending_rotation_ = std::make_unique<Rotation>(Rotation{store_->current_rv(), store_->contents()});
  pending_rotation_offset_ = pending_.size();
  records_since_snapshot_ = 0;
  bytes_since_snapshot_ = 0;
}

void DurableStore::write_batch(std::string& bytes) {
  std::string what = dir_ + "/" + segment_name(segment_seq_);
  while (true) {
    Status st = write_all(segment_fd_, bytes, what);
    if (st && fsync_ && ::fdatasync(segment_fd_) != 0) {
      st = fail(fmt::format("fdatasync of {} failed: {}", what, std::strerror(errno)));
    }
    if (st) return;
    // Answers wait until the write is on disk; keep trying (a full disk may clear).
    spdlog::error("{}; retrying in 1s (writes are not acknowledged meanwhile)", st.error().message);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::lock_guard lock(mutex_);
    if (stopping_) return;
  }
}

void DurableStore::run() {
  std::string bytes;
  std::vector<std::function<void()>> callbacks;
  while (true) {
    std::unique_ptr<Rotation> rotation;
    std::size_t rotation_offset = 0;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty() || pending_rotation_; });
      if (pending_.empty() && !pending_rotation_ && stopping_) break;
      bytes.swap(pending_);
      callbacks.swap(pending_callbacks_);
      rotation = std::move(pending_rotation_);
      rotation_offset = pending_rotation_offset_;
    }
    if (rotation) {
      std::string head = bytes.substr(0, rotation_offset);
      std::string tail = bytes.substr(rotation_offset);
      if (!head.empty()) write_batch(head);
      if (auto st = open_segment(segment_seq_ + 1); !st) {
        spdlog::error("{}; continuing in the current segment", st.error().message);
      }
      if (!tail.empty()) write_batch(tail);
      start_snapshot(rotation->rv, std::move(rotation->contents), segment_seq_);
    } else if (!bytes.empty()) {
      write_batch(bytes);
    }
    {
      std::lock_guard lock(mutex_);
      ++batches_;
      records_ += callbacks.size();
    }
    if (!callbacks.empty()) {
      boost::asio::post(io_, [cbs = std::move(callbacks)] {
        for (const auto& cb : cbs) {
          if (cb) cb();
        }
      });
    }
    callbacks = {};
    bytes.clear();
  }
}

void DurableStore::start_snapshot(std::uint64_t rv, std::vector<ObjectStore::BucketContents> contents,
                                  std::uint64_t first_seq) {
  if (snapshot_thread_.joinable()) snapshot_thread_.join();
  snapshot_thread_ = std::thread([this, rv, contents = std::move(contents), first_seq] {
    auto started = std::chrono::steady_clock::now();
    if (auto st = write_snapshot(dir_, rv, contents); !st) {
      spdlog::error("snapshot at resourceVersion {} failed: {} (the write-ahead log is kept)", rv, st.error().message);
      return;
    }
    for (const auto& [seq, path] : list_segments(dir_)) {
      if (seq >= first_seq) continue;
      std::error_code ec;
      fs::remove(path, ec);
    }
    (void)sync_directory(dir_);
    spdlog::info("snapshot at resourceVersion {} written in {} ms", rv,
                 std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count());
  });
}

void DurableStore::close() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !log_thread_.joinable() && lock_fd_ < 0) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (log_thread_.joinable()) log_thread_.join();
  if (snapshot_thread_.joinable()) snapshot_thread_.join();
  if (segment_fd_ >= 0) {
    if (fsync_) ::fdatasync(segment_fd_);
    ::close(segment_fd_);
    segment_fd_ = -1;
  }
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
}

std::uint64_t DurableStore::batches_written() const {
  std::lock_guard lock(mutex_);
  return batches_;
}

std::uint64_t DurableStore::records_written() const {
  std::lock_guard lock(mutex_);
  return records_;
}

}  // namespace kueuepp::kube::server
