#pragma once

// What Kueue's queue gauges show, computed from a ClusterQueue snapshot (pure, no CAF):
// pending (active/inadmissible), reserving, admitted, finished, status, unadmitted
// reasons, info labels, and per flavor/resource quota, reservation and usage; and the
// same per LocalQueue.

#include "messages/metrics_protocol.hpp"
#include "messages/status_protocol.hpp"

namespace kueuepp::actors {

messages::QueueGauges queue_gauges(const messages::ClusterQueueSnapshot& snapshot);

}  // namespace kueuepp::actors
