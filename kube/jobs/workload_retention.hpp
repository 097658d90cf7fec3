#pragma once

// Kueue's objectRetentionPolicies for Workloads: when a finished Workload is deleted
// (afterFinished) and when the Job of a Workload that Kueue deactivated is deleted
// (afterDeactivatedByKueue). Pure: the deadlines, from the Workload's conditions.

#include <chrono>
#include <optional>

#include "core/model/time.hpp"
#include "kube/client/object.hpp"

namespace kueuepp::kube::jobs {

/// Evicted=True with a reason "DeactivatedDueTo<cause>": Kueue deactivated the Workload
/// (maximum execution time, requeuing limit, rejected admission check), not a user.
bool deactivated_by_kueue(const client::Object& workload);

/// A finished Workload's deletion time under afterFinished: its Finished condition's
/// transition plus `after`; nullopt when it is not finished (or the time is unreadable).
std::optional<core::Time> finished_retention_deadline(const client::Object& workload,
                                                      std::chrono::milliseconds after);

/// The Job's deletion time under afterDeactivatedByKueue: the Evicted transition of a
/// Workload Kueue deactivated (and that is still inactive) plus `after`; nullopt otherwise.
std::optional<core::Time> deactivated_retention_deadline(const client::Object& workload,
                                                         std::chrono::milliseconds after);

}  // namespace kueuepp::kube::jobs
