#pragma once

// Kubernetes objects (JSON documents) to the engine's model. Each decoder validates
// what admission depends on and names the object and field in its error. Unknown fields
// are ignored (the API server owns schema validation).

#include "core/expected.hpp"
#include "core/model/cluster_queue.hpp"
#include "core/model/job.hpp"
#include "core/model/resource_flavor.hpp"
#include "core/model/workload.hpp"
#include "kube/json/json.hpp"
#include "kube/json/json_node.hpp"

namespace kueuepp::kube {

Expected<core::ResourceFlavor> decode_resource_flavor(const json::value& obj);
Expected<core::ClusterQueue> decode_cluster_queue(const json::value& obj);
Expected<core::Cohort> decode_cohort(const json::value& obj);
Expected<core::LocalQueue> decode_local_queue(const json::value& obj);
Expected<core::WorkloadPriorityClass> decode_workload_priority_class(const json::value& obj);
Expected<core::AdmissionCheck> decode_admission_check(const json::value& obj);
Expected<core::Workload> decode_workload(const json::value& obj);
Expected<core::Workload> decode_workload(json::JsonNode obj);
/// A Workload from its JSON text (a packed object), read in place with simdjson: the
/// same decoder and the same errors as for the document, without building it.
Expected<core::Workload> decode_workload_text(std::string_view text);

Expected<core::Namespace> decode_namespace(const json::value& obj);
Expected<core::PriorityClass> decode_priority_class(const json::value& obj);
Expected<core::BatchJob> decode_job(const json::value& obj);

/// A pod template (`{metadata, spec}`) as a pod set: per-pod requests (containers, init
/// containers, overhead, pod-level resources; limits for missing requests), placement
/// and priority class name. `path` prefixes field names in errors.
class FieldReader;
class FieldPath;
core::PodSet decode_pod_template(FieldReader& r, json::JsonNode tmpl, const FieldPath& path);

}  // namespace kueuepp::kube
