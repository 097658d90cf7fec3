#pragma once

// Snapshots: every live object at one resourceVersion, in one file written beside the
// old one and renamed over it (so a crash leaves either snapshot whole). Framed like the
// write-ahead log: SnapshotBegin(rv), one Put per object, SnapshotEnd(rv).

#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/server/store/object_store.hpp"

namespace kueuepp::kube::server {

/// Writes `contents` as the snapshot at `rv` into `dir` (fsync'ed before the rename).
Status write_snapshot(const std::string& dir, std::uint64_t rv, const std::vector<ObjectStore::BucketContents>& contents);

/// Loads `dir`'s snapshot into `store`; returns its resourceVersion (0 when there is
/// none). A damaged snapshot is an error: it was written whole, so damage means the disk
/// or someone else changed it.
Expected<std::uint64_t> load_snapshot(const std::string& dir, ObjectStore& store);

}  // namespace kueuepp::kube::server
