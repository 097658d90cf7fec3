#include "cmd/standalone/jobset_runner.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <set>

#include "cmd/standalone/crd_informer.hpp"
#include "core/model/time.hpp"
#include "kube/client/client.hpp"
#include "kube/client/informer.hpp"

namespace kueuepp::cmd {

using kube::client::Object;
namespace resources = kube::client::resources;

namespace {

std::int64_t replicas_of(const json::value& rjob) {
  const json::value* r = json::find(rjob, "replicas");
  return r != nullptr && r->is_number() ? r->to_number<std::int64_t>() : 1;
}

std::string child_name(const Object& jobset, std::string_view rjob, std::int64_t index) {
  return std::string(jobset.name()) + "-" + std::string(rjob) + "-" + std::to_string(index);
}

bool controlled_by(const Object& job, const Object& jobset) {
  auto ref = job.controller_reference();
  return ref && ref->kind == "JobSet" && ref->uid == jobset.uid();
}

/// The child Job the JobSet controller creates for replica `index` of `rjob`.
Object child_job(const Object& jobset, const json::value& rjob, std::int64_t index) {
  const std::string rjob_name(json::get_string(rjob, "name"));
  json::object labels{{std::string(kJobSetNameLabel), jobset.name()},
                      {std::string(kReplicatedJobNameLabel), rjob_name},
                      {std::string(kJobIndexLabel), std::to_string(index)}};
  json::value spec = json::object{};
  if (const json::value* s = json::find_path(rjob, {"template", "spec"}); s != nullptr && s->is_object()) spec = *s;
  // The pods carry the labels too (the JobSet controller's pod labels).
  json::value& tmpl = spec.as_object()["template"];
  if (!tmpl.is_object()) tmpl = json::object{};
  json::value& meta = tmpl.as_object()["metadata"];
  if (!meta.is_object()) meta = json::object{};
  json::value& pod_labels = meta.as_object()["labels"];
  if (!pod_labels.is_object()) pod_labels = json::object{};
  for (const auto& [k, v] : labels) pod_labels.as_object()[k] = v;
  // JobSet's defaulting webhook: pods restart OnFailure unless the template says.
  json::value& pod_spec = tmpl.as_object()["spec"];
  if (!pod_spec.is_object()) pod_spec = json::object{};
  if (json::get_string(pod_spec, "restartPolicy").empty()) pod_spec.as_object()["restartPolicy"] = "OnFailure";
  spec.as_object().erase("suspend");

  json::object metadata{
      {"name", child_name(jobset, rjob_name, index)},
      {"namespace", jobset.namespace_name()},
      {"labels", std::move(labels)},
      {"ownerReferences",
       json::array{json::object{{"apiVersion", "jobset.x-k8s.io/v1alpha2"}, {"kind", "JobSet"},
                                {"name", jobset.name()}, {"uid", jobset.uid()},
                                {"controller", true}, {"blockOwnerDeletion", true}}}}};
  return Object(json::object{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", std::move(metadata)},
                             {"spec", std::move(spec)}});
}

std::int64_t pods_per_replica(const json::value& rjob) {
  const json::value* spec = json::find_path(rjob, {"template", "spec"});
  auto num = [&](std::string_view key, std::int64_t fallback) {
    const json::value* v = spec != nullptr ? json::find(*spec, key) : nullptr;
    return v != nullptr && v->is_number() ? v->to_number<std::int64_t>() : fallback;
  };
  std::int64_t parallelism = num("parallelism", 1);
  return std::min(parallelism, num("completions", parallelism));
}

json::object condition(std::string_view type, std::string_view reason, std::string_view message, std::string_view now) {
  return json::object{{"type", type}, {"status", "True"}, {"reason", reason}, {"message", message},
                      {"lastTransitionTime", now}};
}

}  // namespace

JobSetStep jobset_step(const Object& jobset, const std::vector<Object>& children, std::string_view now) {
  JobSetStep step;
  if (jobset.being_deleted() || jobset.condition_true("Completed") || jobset.condition_true("Failed")) return step;
  const bool suspended = jobset.bool_at({"spec", "suspend"}).value_or(false);
  const json::value* rjobs = jobset.find({"spec", "replicatedJobs"});
  if (rjobs == nullptr || !rjobs->is_array()) return step;

  std::map<std::string, const Object*> by_name;
  for (const Object& c : children) {
    if (controlled_by(c, jobset) && !c.being_deleted()) by_name[std::string(c.name())] = &c;
  }
  json::array statuses;
  bool all_complete = true;
  bool any_failed = false;
  std::int64_t expected = 0;
  for (const json::value& rjob : rjobs->get_array()) {
    const std::string name(json::get_string(rjob, "name"));
    std::int64_t ready = 0, succeeded = 0, failed = 0, active = 0;
    for (std::int64_t i = 0; i < replicas_of(rjob); ++i) {
      ++expected;
      auto it = by_name.find(child_name(jobset, name, i));
      if (it == by_name.end()) {
        all_complete = false;
        if (!suspended) step.create.push_back(child_job(jobset, rjob, i));
        continue;
      }
      const Object& job = *it->second;
      if (suspended) step.remove.push_back(std::string(job.name()));
      if (job.condition_true("Complete")) {
        ++succeeded;
        continue;
      }
      all_complete = false;
      if (job.condition_true("Failed")) {
        ++failed;
        any_failed = true;
        continue;
      }
      if (job.int_at({"status", "active"}).value_or(0) > 0) ++active;
      if (job.int_at({"status", "ready"}).value_or(0) >= pods_per_replica(rjob)) ++ready;
    }
    if (suspended) ready = active = 0;  // deleted with their pods
    statuses.push_back(json::object{{"name", name},     {"ready", ready},   {"succeeded", succeeded},
                                    {"failed", failed}, {"active", active}, {"suspended", 0}});
  }
  json::object status{{"replicatedJobsStatus", statuses}};
  if (any_failed) {
    status["conditions"] = json::array{condition("Failed", "FailedJobs", "jobset failed due to one or more job failures", now)};
    status["terminalState"] = "Failed";
  } else if (all_complete && expected > 0 && !suspended) {
    status["conditions"] = json::array{condition("Completed", "AllJobsCompleted", "jobset completed successfully", now)};
    status["terminalState"] = "Completed";
  }
  const json::value* current = jobset.find({"status", "replicatedJobsStatus"});
  if (current == nullptr || !(*current == json::value(statuses)) || status.contains("conditions")) {
    step.status = json::value(std::move(status));
  }
  return step;
}

struct JobSetRunner::Impl : std::enable_shared_from_this<Impl> {
  kube::client::Client& client;
  std::shared_ptr<kube::client::Informer> jobsets_informer;
  std::shared_ptr<kube::client::Informer> jobs_informer;
  std::mutex mutex;
  std::map<std::string, Object> jobsets;  ///< key -> JobSet
  std::map<std::string, Object> jobs;     ///< key -> Job controlled by a JobSet
  /// Writes asked for and not answered yet: not asked again meanwhile.
  std::set<std::string> creating;
  std::set<std::string> removing;
  bool stopped = false;

  explicit Impl(kube::client::Client& c) : client(c) {}

  static void log_failure(std::string_view what, const std::string& key, const kube::client::ApiError& e) {
    if (!e.is_not_found()) spdlog::warn("jobset runner: {} {}: {}", what, key, e.message);
  }

  /// Looks at the JobSet `key` again (under `mutex`).
  void act(const std::string& key) {
    auto it = jobsets.find(key);
    if (stopped || it == jobsets.end()) return;
    const Object& jobset = it->second;
    std::vector<Object> children;
    const std::string prefix = std::string(jobset.namespace_name()) + "/";
    for (auto j = jobs.lower_bound(prefix); j != jobs.end() && j->first.starts_with(prefix); ++j) {
      if (controlled_by(j->second, jobset)) children.push_back(j->second);
    }
    JobSetStep step = jobset_step(jobset, children, core::format_rfc3339(
        std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now())));
    std::weak_ptr<Impl> weak = weak_from_this();
    const std::string ns(jobset.namespace_name());
    for (Object& job : step.create) {
      std::string job_key = ns + "/" + std::string(job.name());
      if (!creating.insert(job_key).second) continue;
      client.create(resources::kJob, std::move(job), [weak, job_key, key](kube::client::Result<Object> r) {
        auto self = weak.lock();
        if (!self) return;
        std::lock_guard lock(self->mutex);
        self->creating.erase(job_key);
        if (!r && !r.error().is_already_exists()) log_failure("creating child job for", key, r.error());
      });
    }
    for (const std::string& name : step.remove) {
      std::string job_key = ns + "/" + name;
      if (!removing.insert(job_key).second) continue;
      kube::client::DeleteOptions o;
      o.propagation_policy = "Background";  // its pods go with it
      client.remove(
          resources::kJob, ns, name,
          [weak, job_key, key](kube::client::Result<kube::client::DeleteResult> r) {
            auto self = weak.lock();
            if (!self) return;
            std::lock_guard lock(self->mutex);
            self->removing.erase(job_key);
            if (!r) log_failure("deleting child job of", key, r.error());
          },
          o);
    }
    if (step.status) {
      kube::client::PatchOptions o;
      o.status_subresource = true;
      o.field_manager = "kueuepp-jobset-runner";
      client.patch(resources::kJobSet, ns, jobset.name(), kube::client::PatchType::Merge,
                   json::object{{"status", std::move(*step.status)}},
                   [key](kube::client::Result<Object> r) {
                     if (!r) log_failure("status of", key, r.error());
                   },
                   o);
    }
  }

  void on_jobset(const Object& jobset, bool deleted) {
    std::lock_guard lock(mutex);
    const std::string key = jobset.key();
    if (deleted) {
      jobsets.erase(key);
      return;
    }
    jobsets[key] = jobset;
    act(key);
  }

  void on_job(const Object& job, bool deleted) {
    auto ref = job.controller_reference();
    if (!ref || ref->kind != "JobSet") return;
    std::lock_guard lock(mutex);
    if (deleted) {
      jobs.erase(job.key());
    } else {
      jobs[job.key()] = job;
    }
    act(std::string(job.namespace_name()) + "/" + ref->name);
  }

  void relisted_jobsets(const std::vector<Object>& items) {
    std::lock_guard lock(mutex);
    jobsets.clear();
    for (const Object& js : items) jobsets[js.key()] = js;
    for (const auto& [key, js] : jobsets) act(key);
  }

  void relisted_jobs(const std::vector<Object>& items) {
    std::lock_guard lock(mutex);
    jobs.clear();
    for (const Object& j : items) {
      auto ref = j.controller_reference();
      if (ref && ref->kind == "JobSet") jobs[j.key()] = j;
    }
    for (const auto& [key, js] : jobsets) act(key);
  }
};

JobSetRunner::JobSetRunner(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
JobSetRunner::~JobSetRunner() { stop(); }

std::unique_ptr<JobSetRunner> JobSetRunner::start(kube::client::Client& client) {
  auto impl = std::make_shared<Impl>(client);
  std::weak_ptr<Impl> weak = impl;
  using Type = kube::client::InformerEvent::Type;
  impl->jobs_informer = kube::client::Informer::start(client, resources::kJob, {}, [weak](kube::client::InformerEvent e) {
    auto self = weak.lock();
    if (!self) return;
    if (e.type == Type::Relisted) {
      self->relisted_jobs(e.items);
    } else {
      self->on_job(e.object, e.type == Type::Deleted);
    }
  });
  impl->jobsets_informer = start_crd_informer(
      client, resources::kJobSet,
      {"jobset runner", "JobSets", "no JobSet CRD yet; JobSets run once it is applied", true},
      {[weak](const std::vector<Object>& items) {
         if (auto self = weak.lock()) self->relisted_jobsets(items);
       },
       [weak](const Object& jobset, bool deleted) {
         if (auto self = weak.lock()) self->on_jobset(jobset, deleted);
       }});
  return std::unique_ptr<JobSetRunner>(new JobSetRunner(std::move(impl)));
}

void JobSetRunner::stop() {
  if (!impl_) return;
  if (impl_->jobsets_informer) impl_->jobsets_informer->stop();
  if (impl_->jobs_informer) impl_->jobs_informer->stop();
  std::lock_guard lock(impl_->mutex);
  impl_->stopped = true;
}

}  // namespace kueuepp::cmd
