#pragma once

// Introspection: every actor answers IntrospectActor with what it is and what it holds;
// cohort-tree actors answer Explain queries ("why is this workload pending / preempted",
// "this ClusterQueue's queue in order") with a JSON document.

#include <cstddef>
#include <cstdint>
#include <string>

namespace kueuepp::messages {

struct IntrospectActor {};

struct ActorInfo {
  std::string kind;  ///< snapshot, cohort-tree, cluster-queue, scheduler, writer, watch, job
  std::string name;
  std::uint64_t mailbox = 0;
  std::uint64_t handled = 0;
  std::string summary;  ///< a JSON object with the actor's state summary
};

struct Explain {
  enum class What : std::uint8_t { ClusterQueue, Workload } what = What::Workload;
  std::string key;  ///< ClusterQueue name or ns/name of a workload
  /// A ClusterQueue's pending workloads: the page [offset, offset + limit) of its queue
  /// order, so that a queue of 50,000 answers in a bounded document.
  std::size_t offset = 0;
  std::size_t limit = kDefaultPendingPage;
  static constexpr std::size_t kDefaultPendingPage = 500;
  static constexpr std::size_t kMaxPendingPage = 2000;
};

/// Introspection -> ClusterQueue actor: its quotas and usage per flavor and resource,
/// its counts, and its samples of the last hour, as a JSON object.
struct QueueReport {
  bool with_history = false;
};
struct QueueReportReply {
  std::string json;
};

/// Introspection -> event recorder: what happened to one workload (ns/name), as a JSON
/// array of entries, oldest first.
struct WorkloadHistoryQuery {
  std::string key;
};
struct WorkloadHistoryReply {
  bool known = false;
  std::string json;
};

struct ExplainReply {
  int status = 200;  ///< HTTP status: 200, or 404 when the object is unknown
  std::string json;
};

}  // namespace kueuepp::messages
