#pragma once

// Durability of the data directory: a write-ahead log plus periodic snapshots.
//
// Layout: `snapshot` (every object at one resourceVersion), `wal-<seq>.log` segments
// (every change after it, in order), `LOCK` (one server per directory).
//
// fsync policy (group commit): writes are appended to an in-memory batch on the store
// thread; the log thread writes the whole batch with one write() and one fdatasync(),
// then acknowledges every write of the batch (their answers and watch events go out).
// While it syncs, the next batch collects. So every acknowledged write is on disk, and
// the cost of fsync is shared by all writes that arrived during the previous one.
// With fsync disabled (tests, benchmarks on throwaway data) batches are written but not
// synced.
//
// Snapshots: after kSnapshotEveryRecords records or kSnapshotEveryBytes of log, the log
// moves to a new segment and a snapshot of the state at that point is written by a
// background thread; once it is durable the older segments are removed.
//
// Recovery: load the snapshot, replay the segments. A record that is incomplete or fails
// its checksum (a write torn by a crash) ends the log: the segment is truncated there
// with a warning, never a failure to start.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "core/expected.hpp"
#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/store/object_store.hpp"

namespace kueuepp::kube::server {

class DurableStore final : public Journal {
 public:
  static constexpr std::size_t kSnapshotEveryRecords = 100000;
  static constexpr std::size_t kSnapshotEveryBytes = 128u << 20;

  /// Opens (creating) the data directory and takes its lock. Callbacks of durable
  /// writes are posted to `io`.
  static Expected<std::unique_ptr<DurableStore>> open(const std::string& dir, boost::asio::io_context& io,
                                                      bool fsync);
  ~DurableStore() override;

  /// Loads the snapshot and the log into `store` and starts the log thread. Must be
  /// called once, before append().
  Status recover(ObjectStore& store);

  void append(const Change& change, std::function<void()> durable) override;

  /// Writes what is pending, stops the threads and releases the lock. Idempotent.
  void close();

  /// Statistics, for tests and the log.
  std::uint64_t batches_written() const;
  std::uint64_t records_written() const;

 private:
  DurableStore(std::string dir, boost::asio::io_context& io, bool fsync, int lock_fd);
  void run();
  void write_batch(std::string& bytes);
  Status open_segment(std::uint64_t seq);
  void maybe_snapshot();
  void start_snapshot(std::uint64_t rv, std::vector<ObjectStore::BucketContents> contents, std::uint64_t first_seq);

  std::string dir_;
  boost::asio::io_context& io_;
  bool fsync_;
  int lock_fd_ = -1;
  int segment_fd_ = -1;
  std::uint64_t segment_seq_ = 0;
  ObjectStore* store_ = nullptr;

  // Store thread side.
  std::size_t records_since_snapshot_ = 0;
  std::size_t bytes_since_snapshot_ = 0;

  // Shared with the log thread.
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::string pending_;
  std::vector<std::function<void()>> pending_callbacks_;
  struct Rotation {
    std::uint64_t rv = 0;
    std::vector<ObjectStore::BucketContents> contents;
  };
  std::unique_ptr<Rotation> pending_rotation_;
  std::size_t pending_rotation_offset_ = 0;
  bool stopping_ = false;
  std::uint64_t batches_ = 0;
  std::uint64_t records_ = 0;

  std::thread log_thread_;
  std::thread snapshot_thread_;
};

}  // namespace kueuepp::kube::server
