#pragma once

// Kueue's Workload name for a job (jobframework.GetWorkloadNameForOwnerWithGVK):
//   truncate(lower(kind) + "-" + ownerName, max - 6) + "-" + sha1(kind \n group \n name \n uid)[:5]
// The hash keeps names of different owners apart after truncation and across kinds.

#include <cstddef>
#include <string>
#include <string_view>

namespace kueuepp::kube::jobs {

/// Kubernetes' object-name limit; Kueue's default.
inline constexpr std::size_t kLongMaxWorkloadNameLength = 253;
/// Kueue's ShortWorkloadNames feature gate: names usable as label values.
inline constexpr std::size_t kShortMaxWorkloadNameLength = 63;
inline constexpr std::size_t kWorkloadNameHashLength = 5;

struct OwnerIdentity {
  std::string_view name;
  std::string_view uid;
  std::string_view group;  ///< "batch" for batch/v1 Job ("" for the core group)
  std::string_view kind;   ///< "Job"
};

/// The Workload name for `owner`. `extra` (the owner's generation for elastic slices) is
/// hashed too when non-empty. `max_length` is 253, or 63 with ShortWorkloadNames.
std::string workload_name_for_owner(const OwnerIdentity& owner, std::size_t max_length = kLongMaxWorkloadNameLength,
                                    std::string_view extra = {});

/// The Workload name for a batch/v1 Job.
std::string workload_name_for_job(std::string_view job_name, std::string_view job_uid,
                                  std::size_t max_length = kLongMaxWorkloadNameLength);

}  // namespace kueuepp::kube::jobs
