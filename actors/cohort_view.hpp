#pragma once

// The cohort trees of the web view (GET /debug/cohorts): the ClusterQueue actors'
// reports grouped by the root of their cohort tree (a ClusterQueue without a cohort is a
// tree of its own), with what each queue lends.
//
// What a queue lends is not a quantity Kueue keeps: quota borrowed in a cohort comes
// from the unused lendable quota of all the others at once. The view attributes the
// tree's borrowed total, per flavor and resource, to the lending queues in proportion to
// their unused lendable quota (unused nominal quota, capped by lendingLimit), so the
// `lent` of a tree's queues adds up to what its queues borrow (quota a Cohort holds
// itself is not counted as lent by any queue).

#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::actors {

/// `reports` are queue_report objects (without history); the answer is
/// {"trees":[{"root": R, "clusterQueues":[report + lentMilli/lent per resource]}], ...}.
json::object cohort_view(std::vector<json::object> reports);

}  // namespace kueuepp::actors
