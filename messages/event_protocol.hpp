#pragma once

// Any actor -> event recorder: record a Kubernetes Event about an object (fire and
// forget; the recorder rate-limits and aggregates, and dropping one is harmless).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/object_kind.hpp"

namespace kueuepp::messages {

struct RecordEvent {
  ObjectKind kind = ObjectKind::Job;  ///< of the involved object
  std::string ns;
  std::string name;
  std::string uid;
  bool warning = false;  ///< type Warning, else Normal
  std::string reason;
  std::string message;
  /// The shard of the tree the event is about (sharding): the writer sends it only while
  /// this replica holds the shard, like every other write about the tree.
  std::optional<std::uint32_t> shard;
  /// Kept for the workload's history in the web view only, never written as an Event
  /// (a pending explanation: Kueue records it as a condition, not as an Event).
  bool history_only = false;
};

/// Several events, recorded in order: what a cohort tree asked for since its last batch
/// (one message per event was most of the recorder's mailbox traffic).
struct RecordEvents {
  std::vector<RecordEvent> events;
};

}  // namespace kueuepp::messages
