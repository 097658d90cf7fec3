#pragma once

// Introspection: every actor answers IntrospectActor with what it is and what it holds;
// cohort-tree actors answer Explain queries ("why is this workload pending / preempted",
// "this ClusterQueue's queue in order") with a JSON document.

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
};

struct ExplainReply {
  int status = 200;  ///< HTTP status: 200, or 404 when the object is unknown
  std::string json;
};

}  // namespace kueuepp::messages
