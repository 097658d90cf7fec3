#include "actors/what_if_request.hpp"

#include <map>
#include <memory>

#include "kube/client/object.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/jobs/workload_builder.hpp"
#include "kube/json/json.hpp"
#include "kube/objects/decoders.hpp"

namespace kueuepp::actors {

namespace vis = kube::visibility;

namespace {

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

/// The Workload Kueue's Job integration would create for `job` on this LocalQueue.
Expected<core::Workload> job_workload(const core::Engine& engine, kube::client::Object job, const vis::WhatIfQuery& q) {
  if (job.namespace_name().empty()) job.set_namespace(q.ns);
  if (job.namespace_name() != q.ns) {
    return fail("the Job is in namespace " + quoted(job.namespace_name()) + ", the LocalQueue in " + quoted(q.ns) +
                ": ask the LocalQueue of the Job's namespace");
  }
  if (job.name().empty()) {
    // A Job named by generateName: its Workload's name does not matter to the answer.
    job.set_name(job.generate_name().empty() ? std::string_view("what-if") : job.generate_name());
  }
  auto label = job.label(kube::jobs::kQueueNameLabel);
  if (!label) {
    job.set_label(kube::jobs::kQueueNameLabel, q.local_queue);
  } else if (*label != q.local_queue) {
    return fail("the Job's " + std::string(kube::jobs::kQueueNameLabel) + " label names LocalQueue " + quoted(*label) +
                ", the question was asked of " + quoted(q.local_queue) + ": ask that LocalQueue or change the label");
  }
  if (auto valid = kube::jobs::validate_job(job); !valid) return unexpected(valid.error());
  kube::jobs::BuildOptions options;
  options.workload_priority_class = [&engine](std::string_view name) {
    return engine.workload_priority_class_value(name);
  };
  options.priority_class = [&engine](std::string_view name) { return engine.priority_class_value(name); };
  options.default_priority_class = engine.default_priority_class();
  auto built = kube::jobs::build_workload(job, options);
  if (!built) return unexpected(built.error());
  return kube::decode_workload(built->json());
}

}  // namespace

core::RuntimeHints runtime_hints(const StoredWorkloadText& text_of) {
  core::RuntimeHints hints;
  auto read = std::make_shared<std::map<std::string, std::optional<core::Duration>, std::less<>>>();
  hints.maximum_execution_time = [text_of, read](std::string_view key) -> std::optional<core::Duration> {
    if (auto it = read->find(key); it != read->end()) return it->second;
    std::optional<core::Duration> limit;
    if (auto doc = json::parse(text_of(key))) {
      const json::value* v = json::find_path(*doc, {"spec", "maximumExecutionTimeSeconds"});
      if (v != nullptr && v->is_int64() && v->as_int64() > 0) limit = std::chrono::seconds(v->as_int64());
    }
    read->emplace(std::string(key), limit);
    return limit;
  };
  return hints;
}

Expected<core::Workload> what_if_workload(const core::Engine& engine, const vis::WhatIfQuery& q) {
  auto doc = json::parse(q.body);
  if (!doc || !doc->is_object()) {
    return fail("the body is not a JSON object: send a batch/v1 Job or a kueue.x-k8s.io/v1beta2 Workload");
  }
  const std::string_view api_version = json::get_string(*doc, "apiVersion");
  const std::string_view kind = json::get_string(*doc, "kind");
  if (api_version == "batch/v1" && kind == "Job") {
    auto job = kube::client::Object::from_json(std::move(*doc));
    if (!job) return unexpected(job.error());
    return job_workload(engine, std::move(*job), q);
  }
  if (api_version != "kueue.x-k8s.io/v1beta2" || kind != "Workload") {
    return fail("cannot ask about " + quoted(std::string(api_version) + ", Kind=" + std::string(kind)) +
                ": send a batch/v1 Job or a kueue.x-k8s.io/v1beta2 Workload");
  }
  auto wl = kube::decode_workload(*doc);
  if (!wl) return unexpected(wl.error());
  if (wl->ns.empty()) wl->ns = q.ns;
  if (wl->ns != q.ns) {
    return fail("the Workload is in namespace " + quoted(wl->ns) + ", the LocalQueue in " + quoted(q.ns) +
                ": ask the LocalQueue of the Workload's namespace");
  }
  if (wl->name.empty()) wl->name = "what-if";
  if (wl->queue_name.empty()) wl->queue_name = q.local_queue;
  if (wl->queue_name != q.local_queue) {
    return fail("the Workload's spec.queueName is " + quoted(wl->queue_name) + ", the question was asked of " +
                quoted(q.local_queue) + ": ask that LocalQueue or change spec.queueName");
  }
  // The question is about a submission: whatever status it carries is not the cluster's.
  wl->admission.reset();
  wl->conditions.clear();
  wl->reclaimable_pods.clear();
  wl->requeue_at.reset();
  wl->requeue_count = 0;
  wl->admission_checks.clear();
  return wl;
}

vis::WhatIfResult answer_what_if(const core::Engine& engine, const vis::WhatIfQuery& q, core::Time now,
                                 const core::RuntimeHints& hints) {
  vis::WhatIfResult result;
  result.asked_at = now;
  if (!engine.cluster_queue_of_local_queue(q.ns, q.local_queue)) {
    result.kind = vis::WhatIfResult::Kind::LocalQueueNotFound;
    return result;
  }
  auto wl = what_if_workload(engine, q);
  if (!wl) {
    result.kind = vis::WhatIfResult::Kind::Invalid;
    result.message = wl.error().message;
    return result;
  }
  wl->uid.clear();  // a new object's: what_if names it
  wl->creation = core::Time{};
  result.answer = engine.what_if(*wl, now, hints);
  return result;
}

}  // namespace kueuepp::actors
