#pragma once

// The visibility API's question to the controller: a page of a ClusterQueue's (or a
// LocalQueue's) pending workloads. The HTTPS server's thread sends it to the snapshot
// actor, which hands it to the tree that holds the queue; the tree answers through
// `done` (once, from its own thread).

#include <functional>

#include "core/expected.hpp"
#include "kube/visibility/visibility_handler.hpp"

namespace kueuepp::messages {

struct PendingWorkloadsCall {
  kube::visibility::PendingWorkloadsQuery query;
  std::function<void(Expected<kube::visibility::PendingWorkloadsResult>)> done;
};

}  // namespace kueuepp::messages
