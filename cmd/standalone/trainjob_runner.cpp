#include "cmd/standalone/trainjob_runner.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "cmd/standalone/crd_informer.hpp"
#include "core/model/time.hpp"
#include "kube/client/client.hpp"
#include "kube/client/informer.hpp"
#include "kube/jobs/trainjob_jobset.hpp"

namespace kueuepp::cmd {

using kube::client::Object;
namespace resources = kube::client::resources;

namespace {

bool finished(const Object& trainjob) { return trainjob.condition_true("Complete") || trainjob.condition_true("Failed"); }

/// The TrainJob's jobsStatus as the trainer copies it from its JobSet.
json::array jobs_status(const Object& jobset) {
  json::array out;
  const json::value* statuses = jobset.find({"status", "replicatedJobsStatus"});
  if (statuses == nullptr || !statuses->is_array()) return out;
  for (const json::value& s : statuses->get_array()) {
    json::object entry{{"name", json::get_string(s, "name")}};
    for (std::string_view field : {"ready", "succeeded", "failed", "active", "suspended"}) {
      const json::value* v = json::find(s, field);
      entry[field] = v != nullptr && v->is_number() ? v->to_number<std::int64_t>() : 0;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

/// The TrainJob's conditions with the JobSet's Completed or Failed copied as Complete or
/// Failed (nullopt: nothing to add).
std::optional<json::array> conditions_after(const Object& trainjob, const Object& jobset, std::string_view now) {
  using Copied = std::pair<std::string_view, std::string_view>;  // the JobSet's type, the TrainJob's
  for (auto [from, to] : {Copied{"Completed", "Complete"}, Copied{"Failed", "Failed"}}) {
    auto c = jobset.condition(from);
    if (!c || c->status != "True" || trainjob.condition_true(to)) continue;
    json::array out;
    if (const json::value* existing = trainjob.find({"status", "conditions"}); existing && existing->is_array()) {
      for (const json::value& e : existing->get_array()) {
        if (json::get_string(e, "type") != to) out.push_back(e);
      }
    }
    out.push_back(json::object{{"type", to},
                               {"status", "True"},
                               {"reason", c->reason},
                               {"message", c->message},
                               {"lastTransitionTime", now}});
    return out;
  }
  return std::nullopt;
}

bool controlled_by(const Object& jobset, const Object& trainjob) {
  auto ref = jobset.controller_reference();
  return ref && ref->kind == resources::kTrainJob.kind && ref->uid == trainjob.uid();
}

}  // namespace

TrainJobStep trainjob_step(const Object& trainjob, const Object* runtime, const Object* jobset, std::string_view now) {
  TrainJobStep step;
  if (trainjob.being_deleted() || finished(trainjob)) return step;
  const bool suspended = trainjob.bool_at({"spec", "suspend"}).value_or(false);
  if (jobset == nullptr) {
    // The trainer builds the JobSet of a suspended TrainJob too; here it is built when it
    // can run, from the TrainJob of then.
    if (suspended || runtime == nullptr) return step;
    auto built = kube::jobs::trainjob_jobset(trainjob, *runtime);
    if (!built) {
      spdlog::warn("trainjob runner: {}", built.error().message);
      return step;
    }
    step.create_jobset = std::move(*built);
    return step;
  }
  const bool jobset_suspended = jobset->bool_at({"spec", "suspend"}).value_or(false);
  if (suspended && !jobset_suspended) {
    step.jobset_patch = json::object{{"spec", json::object{{"suspend", true}}}};
  } else if (!suspended && jobset_suspended && runtime != nullptr) {
    // Resumed: the JobSet is rebuilt from the TrainJob as it is now (the admitted flavors
    // in its runtime patch) and resumed, as the trainer applies it.
    auto spec = kube::jobs::trainjob_jobset_spec(trainjob, *runtime);
    if (spec) {
      spec->as_object()["suspend"] = false;
      step.jobset_patch = json::object{{"spec", std::move(*spec)}};
    } else {
      spdlog::warn("trainjob runner: {}", spec.error().message);
    }
  }
  json::object status;
  json::array statuses = jobs_status(*jobset);
  const json::value* current = trainjob.find({"status", "jobsStatus"});
  if (current == nullptr ? !statuses.empty() : !(*current == json::value(statuses))) status["jobsStatus"] = statuses;
  if (auto conditions = conditions_after(trainjob, *jobset, now)) status["conditions"] = std::move(*conditions);
  if (!status.empty()) step.status = json::value(std::move(status));
  return step;
}

struct TrainJobRunner::Impl : std::enable_shared_from_this<Impl> {
  kube::client::Client& client;
  std::vector<std::shared_ptr<kube::client::Informer>> informers;
  std::mutex mutex;
  std::map<std::string, Object> trainjobs;  ///< key -> TrainJob
  std::map<std::string, Object> runtimes;   ///< "<kind>:<key>" -> runtime
  std::map<std::string, Object> jobsets;    ///< key -> JobSet controlled by a TrainJob
  /// Writes asked for and not answered yet: not asked again meanwhile.
  std::set<std::string> writing;
  bool stopped = false;

  explicit Impl(kube::client::Client& c) : client(c) {}

  static void log_failure(std::string_view what, const std::string& key, const kube::client::ApiError& e) {
    if (!e.is_not_found() && !e.is_conflict()) spdlog::warn("trainjob runner: {} {}: {}", what, key, e.message);
  }

  const Object* runtime_of(const Object& trainjob) const {
    auto ref = kube::jobs::training_runtime_ref(trainjob);
    if (!ref) return nullptr;
    auto it = runtimes.find(ref->kind + ":" + (ref->ns.empty() ? ref->name : ref->ns + "/" + ref->name));
    return it == runtimes.end() ? nullptr : &it->second;
  }

  /// A write for `key` unless one is out; `done` runs (under `mutex`) when it is answered.
  template <typename Send>
  void write(const std::string& what, const std::string& key, Send send) {
    const std::string id = what + " " + key;
    if (!writing.insert(id).second) return;
    std::weak_ptr<Impl> weak = weak_from_this();
    send([weak, id, what, key](const kube::client::Result<Object>& r) {
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard lock(self->mutex);
      self->writing.erase(id);
      if (!r && !r.error().is_already_exists()) log_failure(what, key, r.error());
    });
  }

  /// Looks at the TrainJob `key` again (under `mutex`).
  void act(const std::string& key) {
    auto it = trainjobs.find(key);
    if (stopped || it == trainjobs.end()) return;
    const Object& trainjob = it->second;
    auto js = jobsets.find(key);
    const Object* jobset = js != jobsets.end() && controlled_by(js->second, trainjob) ? &js->second : nullptr;
    TrainJobStep step = trainjob_step(trainjob, runtime_of(trainjob), jobset,
                                      core::format_rfc3339(std::chrono::time_point_cast<std::chrono::microseconds>(
                                          std::chrono::system_clock::now())));
    const std::string ns(trainjob.namespace_name());
    const std::string name(trainjob.name());
    if (step.create_jobset) {
      write("creating the JobSet of", key, [&](auto done) {
        client.create(resources::kJobSet, std::move(*step.create_jobset),
                      [done](kube::client::Result<Object> r) { done(r); });
      });
    }
    if (step.jobset_patch) {
      write("updating the JobSet of", key, [&](auto done) {
        client.patch(resources::kJobSet, ns, name, kube::client::PatchType::Merge, std::move(*step.jobset_patch),
                     [done](kube::client::Result<Object> r) { done(r); });
      });
    }
    if (step.status) {
      kube::client::PatchOptions o;
      o.status_subresource = true;
      o.field_manager = "kueuepp-trainjob-runner";
      client.patch(resources::kTrainJob, ns, name, kube::client::PatchType::Merge,
                   json::object{{"status", std::move(*step.status)}},
                   [key](kube::client::Result<Object> r) {
                     if (!r) log_failure("status of", key, r.error());
                   },
                   o);
    }
  }

  void act_all() {
    for (const auto& [key, tj] : trainjobs) act(key);
  }

  void on_trainjob(const Object& trainjob, bool deleted) {
    std::lock_guard lock(mutex);
    if (deleted) {
      trainjobs.erase(trainjob.key());
      return;
    }
    trainjobs[trainjob.key()] = trainjob;
    act(trainjob.key());
  }

  void on_runtime(std::string_view kind, const Object& runtime, bool deleted) {
    std::lock_guard lock(mutex);
    const std::string key = std::string(kind) + ":" + runtime.key();
    if (deleted) {
      runtimes.erase(key);
    } else {
      runtimes[key] = runtime;
    }
    act_all();
  }

  void relisted_runtimes(std::string_view kind, const std::vector<Object>& items) {
    std::lock_guard lock(mutex);
    const std::string prefix = std::string(kind) + ":";
    for (auto it = runtimes.lower_bound(prefix); it != runtimes.end() && it->first.starts_with(prefix);) {
      it = runtimes.erase(it);
    }
    for (const Object& r : items) runtimes[prefix + r.key()] = r;
    act_all();
  }

  void on_jobset(const Object& jobset, bool deleted) {
    auto ref = jobset.controller_reference();
    if (!ref || ref->kind != resources::kTrainJob.kind) return;
    std::lock_guard lock(mutex);
    if (deleted) {
      jobsets.erase(jobset.key());
    } else {
      jobsets[jobset.key()] = jobset;
    }
    act(std::string(jobset.namespace_name()) + "/" + ref->name);
  }

  void relisted_trainjobs(const std::vector<Object>& items) {
    std::lock_guard lock(mutex);
    trainjobs.clear();
    for (const Object& tj : items) trainjobs[tj.key()] = tj;
    act_all();
  }

  void relisted_jobsets(const std::vector<Object>& items) {
    std::lock_guard lock(mutex);
    jobsets.clear();
    for (const Object& js : items) {
      auto ref = js.controller_reference();
      if (ref && ref->kind == resources::kTrainJob.kind) jobsets[js.key()] = js;
    }
    act_all();
  }
};

TrainJobRunner::TrainJobRunner(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
TrainJobRunner::~TrainJobRunner() { stop(); }

std::unique_ptr<TrainJobRunner> TrainJobRunner::start(kube::client::Client& client) {
  auto impl = std::make_shared<Impl>(client);
  std::weak_ptr<Impl> weak = impl;
  // TrainJobs run from when the trainer's CRDs and the JobSet CRD are applied.
  auto watch = [&](const kube::client::ResourceDescriptor& resource, CrdWatchHandlers handlers) {
    const std::string kind(resource.kind);
    impl->informers.push_back(start_crd_informer(
        client, resource, {"trainjob runner", kind, fmt::format("no {} CRD yet; waiting for it", kind)},
        std::move(handlers)));
  };
  watch(resources::kTrainJob, {[weak](const std::vector<Object>& items) {
                                 if (auto self = weak.lock()) self->relisted_trainjobs(items);
                               },
                               [weak](const Object& trainjob, bool deleted) {
                                 if (auto self = weak.lock()) self->on_trainjob(trainjob, deleted);
                               }});
  for (const kube::client::ResourceDescriptor* r : {&resources::kTrainingRuntime, &resources::kClusterTrainingRuntime}) {
    watch(*r, {[weak, kind = r->kind](const std::vector<Object>& items) {
                 if (auto self = weak.lock()) self->relisted_runtimes(kind, items);
               },
               [weak, kind = r->kind](const Object& runtime, bool deleted) {
                 if (auto self = weak.lock()) self->on_runtime(kind, runtime, deleted);
               }});
  }
  watch(resources::kJobSet, {[weak](const std::vector<Object>& items) {
                               if (auto self = weak.lock()) self->relisted_jobsets(items);
                             },
                             [weak](const Object& jobset, bool deleted) {
                               if (auto self = weak.lock()) self->on_jobset(jobset, deleted);
                             }});
  return std::unique_ptr<TrainJobRunner>(new TrainJobRunner(std::move(impl)));
}

void TrainJobRunner::stop() {
  if (!impl_) return;
  for (auto& informer : impl_->informers) {
    if (informer) informer->stop();
  }
  std::lock_guard lock(impl_->mutex);
  impl_->stopped = true;
}

}  // namespace kueuepp::cmd
