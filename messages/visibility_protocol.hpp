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

/// A what-if question (kube/visibility/what_if_api.hpp), routed as a LocalQueue's page
/// is: to the tree holding the LocalQueue, which answers from its engine.
struct WhatIfCall {
  kube::visibility::WhatIfQuery query;
  std::function<void(Expected<kube::visibility::WhatIfResult>)> done;
};

}  // namespace kueuepp::messages
