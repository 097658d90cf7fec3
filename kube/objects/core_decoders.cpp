// Built-in Kubernetes objects: Namespace, scheduling.k8s.io PriorityClass, batch/v1 Job.

#include "kube/objects/decoders.hpp"
#include "kube/objects/field_reader.hpp"

namespace kueuepp::kube {

Expected<core::Namespace> decode_namespace(const json::value& obj) {
  FieldReader r(describe_object("Namespace", obj));
  core::Namespace ns;
  const json::value* meta = FieldReader::get(&obj, "metadata");
  ns.name = r.string(FieldReader::get(meta, "name"), "metadata.name");
  if (ns.name.empty() && !r.failed()) r.fail("metadata.name", "Required value");
  ns.labels = r.string_map(FieldReader::get(meta, "labels"), "metadata.labels");
  // kube-apiserver always sets this label.
  ns.labels["kubernetes.io/metadata.name"] = ns.name;
  if (r.failed()) return unexpected(r.error());
  return ns;
}

Expected<core::PriorityClass> decode_priority_class(const json::value& obj) {
  FieldReader r(describe_object("PriorityClass", obj));
  core::PriorityClass pc;
  pc.name = r.string(FieldReader::get(FieldReader::get(&obj, "metadata"), "name"), "metadata.name");
  auto v = r.integer(FieldReader::get(&obj, "value"), "value");
  if (!v && !r.failed()) r.fail("value", "Required value");
  pc.value = static_cast<std::int32_t>(v.value_or(0));
  pc.global_default = r.boolean(FieldReader::get(&obj, "globalDefault"), "globalDefault").value_or(false);
  if (r.failed()) return unexpected(r.error());
  return pc;
}

Expected<core::BatchJob> decode_job(const json::value& obj) {
  FieldReader r(describe_object("Job", obj));
  core::BatchJob job;
  const json::value* meta = FieldReader::get(&obj, "metadata");
  job.name = r.string(FieldReader::get(meta, "name"), "metadata.name");
  if (job.name.empty() && !r.failed()) r.fail("metadata.name", "Required value");
  job.ns = r.string(FieldReader::get(meta, "namespace"), "metadata.namespace", "default");
  job.uid = r.string(FieldReader::get(meta, "uid"), "metadata.uid");
  job.creation = r.time(FieldReader::get(meta, "creationTimestamp"), "metadata.creationTimestamp").value_or(core::Time{});
  job.labels = r.string_map(FieldReader::get(meta, "labels"), "metadata.labels");
  job.annotations = r.string_map(FieldReader::get(meta, "annotations"), "metadata.annotations");
  const json::value* spec = FieldReader::get(&obj, "spec");
  auto parallelism = r.integer(FieldReader::get(spec, "parallelism"), "spec.parallelism");
  auto completions = r.integer(FieldReader::get(spec, "completions"), "spec.completions");
  // kube-apiserver defaulting: both absent -> 1 and 1; parallelism alone -> completions nil.
  job.parallelism = static_cast<std::int32_t>(parallelism.value_or(1));
  if (completions) {
    job.completions = static_cast<std::int32_t>(*completions);
  } else if (!parallelism) {
    job.completions = 1;
  }
  if (job.parallelism < 0) r.fail("spec.parallelism", "must be greater than or equal to 0");
  if (job.completions && *job.completions < 0) r.fail("spec.completions", "must be greater than or equal to 0");
  job.suspend = r.boolean(FieldReader::get(spec, "suspend"), "spec.suspend").value_or(false);
  job.pod_template = decode_pod_template(r, FieldReader::get(spec, "template"), "spec.template");
  if (r.failed()) return unexpected(r.error());
  return job;
}

}  // namespace kueuepp::kube
