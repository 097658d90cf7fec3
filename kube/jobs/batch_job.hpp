#pragma once

// batch/v1 Job as a Kueue job integration ("batch/job"): the adapter from JobIntegration
// to the Job's own rules (job_status.hpp, job_start_stop.hpp, job_pod_sets.hpp,
// workload_builder.hpp, equivalence.hpp).

#include "kube/jobs/integration.hpp"

namespace kueuepp::kube::jobs {

const JobIntegration& batch_job_integration();

}  // namespace kueuepp::kube::jobs
