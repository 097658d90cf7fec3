#include "actors/watched_kinds.hpp"

#include <array>

#include "kube/jobs/batch_job.hpp"
#include "kube/jobs/jobset.hpp"

namespace kueuepp::actors {

const kube::client::ResourceDescriptor& resource_of(messages::ObjectKind kind) {
  return *messages::kind_traits(kind).resource;
}

std::span<const JobKindEntry> job_kinds() {
  static const std::array<JobKindEntry, 2> kKinds{{
      {"batch/job", messages::ObjectKind::Job, &kube::jobs::batch_job_integration, false},
      {kube::jobs::kJobSetFramework, messages::ObjectKind::JobSet, &kube::jobs::jobset_integration, true},
  }};
  return kKinds;
}

std::optional<JobKindEntry> find_job_kind(std::string_view framework) {
  for (const JobKindEntry& e : job_kinds()) {
    if (e.framework == framework) return e;
  }
  return std::nullopt;
}

}  // namespace kueuepp::actors
