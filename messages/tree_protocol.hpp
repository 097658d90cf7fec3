#pragma once

// Snapshot actor -> cohort-tree actor: the objects of one cohort tree (plus the
// cluster-wide ones every tree needs), in the order the watches delivered them.
// Scheduler <-> cohort-tree actor: admission rounds.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/time.hpp"
#include "messages/model_object.hpp"
#include "messages/object_kind.hpp"
#include "messages/watch_events.hpp"

namespace kueuepp::messages {

struct TreeObjectChange {
  ObjectKind kind = ObjectKind::Workload;
  bool removed = false;
  /// `namespace/name` for namespaced kinds, `name` otherwise.
  std::string key;
  std::shared_ptr<const ModelObject> model;  ///< null when removed
  /// The version (empty when removed): packed for the kinds that travel packed, whose
  /// trees read the rest from the model and keep the text.
  CachedObject object;
};

/// Changes for one tree, applied in order and atomically between rounds.
struct TreeBatch {
  std::vector<TreeObjectChange> changes;
};

/// Snapshot actor -> tree: whether this replica acts on the tree (it holds the tree's
/// shard). An inactive tree keeps applying changes, so it explains and reports the
/// cluster as watched, but runs no rounds and writes nothing. Without sharding every
/// tree is active and `shard` is empty.
struct TreeOwnership {
  bool active = true;
  std::optional<std::uint32_t> shard;
};

/// Scheduler -> tree: run an admission round now (time is an input of the engine).
struct RunRound {
  core::Time now{};
};

/// The tree's own timer: publish ClusterQueue snapshots (status, metrics), at most
/// once per status interval however many rounds run.
struct PublishStatus {};

/// The tree's own timer: read back workload `key` again, to settle a write of it whose
/// answer was lost or that was refused (see actors/read_back.hpp). `what` tells which of
/// the workload's unsettled writes (the tree's own numbering).
struct ReadBackDue {
  std::string key;
  int what = 0;
};

/// Tree -> scheduler: something changed; a round would make progress.
struct TreeDirty {
  std::string tree;
};

/// Tree -> scheduler: what a round did, and when the tree wants to run again even if
/// nothing changes (a requeue backoff or a waitForPodsReady timeout expires).
struct RoundDone {
  std::string tree;
  std::uint64_t cycles = 0;
  std::uint64_t admitted = 0;
  std::uint64_t preempted = 0;
  std::int64_t duration_us = 0;
  std::optional<core::Time> wake_at;
};

}  // namespace kueuepp::messages
