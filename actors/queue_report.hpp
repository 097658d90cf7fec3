#pragma once

// What a ClusterQueue actor tells the web view of its queue (GET /debug/cohorts and
// /debug/clusterqueues/NAME/history): its cohort path, counts, pending reasons, and per
// flavor and resource its nominal quota and limits (from the ClusterQueue object), what
// its workloads reserve and use and what of it is borrowed (from the engine's view);
// with its samples of the last hour on request.

#include <string>

#include "actors/queue_history.hpp"
#include "kube/json/json.hpp"
#include "messages/status_protocol.hpp"

namespace kueuepp::actors {

/// The sample `snap` gives at `now`.
QueueSample sample_of(const messages::ClusterQueueSnapshot& snap, core::Time now);

/// The queue's report: a JSON object (see the header comment); `history` may be null.
json::object queue_report(const std::string& name, const messages::ClusterQueueSnapshot& snap,
                          const QueueHistory* history);

}  // namespace kueuepp::actors
