#include "cmd/standalone/kubeflow_runner.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "cmd/standalone/crd_informer.hpp"
#include "cmd/standalone/running_jobs.hpp"
#include "core/model/time.hpp"
#include "kube/client/client.hpp"
#include "kube/client/conditions.hpp"
#include "kube/client/informer.hpp"

namespace kueuepp::cmd {

using kube::client::Object;
using kube::jobs::KubeflowKind;

namespace {

core::Time now() { return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()); }

/// The job's replica specs by type (those that are objects).
std::vector<std::pair<std::string, const json::value*>> replicas(const KubeflowKind& kind, const Object& job) {
  std::vector<std::pair<std::string, const json::value*>> out;
  const json::value* specs = job.find({"spec", kind.replica_specs_field});
  if (specs == nullptr || !specs->is_object()) return out;
  for (const auto& entry : specs->get_object()) {
    if (entry.value().is_object()) out.emplace_back(std::string(entry.key()), &entry.value());
  }
  return out;
}

std::int64_t replica_count(const json::value& spec) {
  const json::value* r = json::find(spec, "replicas");
  return r != nullptr && r->is_number() ? r->to_number<std::int64_t>() : 1;
}

bool finished(const Object& job) { return job.condition_true("Succeeded") || job.condition_true("Failed"); }

}  // namespace

json::object kubeflow_status(const KubeflowKind& kind, const Object& job, KubeflowPhase phase, std::string_view now_text) {
  Object next = job;
  const std::string what = std::string(kind.resource->kind) + " " + job.key();
  const std::string prefix(kind.resource->kind);
  auto set = [&](std::string_view type, bool status, std::string reason, std::string message) {
    next.set_condition(kube::client::Condition{std::string(type), status ? "True" : "False", std::move(reason),
                                               std::move(message), "", std::nullopt},
                       now_text);
  };
  if (!next.condition("Created")) set("Created", true, prefix + "Created", what + " is created.");
  json::object replica_statuses;
  for (const auto& [type, spec] : replicas(kind, job)) {
    const std::int64_t n = replica_count(*spec);
    // Zeros are written, not left out: the status is merge-patched, and a field left out
    // would keep its running value.
    json::object s;
    s["active"] = phase == KubeflowPhase::Running ? n : 0;
    if (phase == KubeflowPhase::Succeeded) s["succeeded"] = n;
    replica_statuses[type] = std::move(s);
  }
  json::object status;
  switch (phase) {
    case KubeflowPhase::Running:
      if (next.condition("Suspended")) set("Suspended", false, prefix + "Resumed", what + " is resumed.");
      set("Running", true, prefix + "Running", what + " is running.");
      status["startTime"] = now_text;
      break;
    case KubeflowPhase::Suspended:
      set("Running", false, prefix + "Suspended", what + " is suspended.");
      set("Suspended", true, prefix + "Suspended", what + " is suspended.");
      status["startTime"] = nullptr;
      break;
    case KubeflowPhase::Succeeded:
      set("Running", false, prefix + "Succeeded", what + " successfully completed.");
      set("Succeeded", true, prefix + "Succeeded", what + " successfully completed.");
      status["completionTime"] = now_text;
      break;
  }
  status["conditions"] = *next.find({"status", "conditions"});
  status["replicaStatuses"] = std::move(replica_statuses);
  return status;
}

std::optional<std::chrono::milliseconds> kubeflow_requested_duration(const KubeflowKind& kind, const Object& job) {
  std::optional<std::chrono::milliseconds> longest;
  for (const auto& [type, spec] : replicas(kind, job)) {
    const json::value* tmpl = json::find(*spec, "template");
    if (tmpl == nullptr) continue;
    auto d = requested_duration_of_template(*tmpl);
    if (d && (!longest || *d > *longest)) longest = d;
  }
  return longest;
}

struct KubeflowRunner::Impl : std::enable_shared_from_this<Impl> {
  kube::client::Client& client;
  JobRunnerOptions options;
  std::vector<std::shared_ptr<kube::client::Informer>> informers;
  RunningJobs running;  ///< by running_key

  Impl(kube::client::Client& c, JobRunnerOptions o) : client(c), options(o) {}

  static std::string running_key(const KubeflowKind& kind, const Object& job) {
    return std::string(kind.resource->kind) + "/" + job.key();
  }

  void patch_status(const KubeflowKind& kind, const Object& job, json::object status, std::string what) {
    std::string key = running_key(kind, job);
    kube::client::PatchOptions o;
    o.status_subresource = true;
    o.field_manager = "kueuepp-kubeflow-runner";
    client.patch(*kind.resource, job.namespace_name(), job.name(), kube::client::PatchType::Merge,
                 json::object{{"status", std::move(status)}},
                 [key, what](kube::client::Result<Object> r) {
                   if (!r && !r.error().is_not_found()) {
                     spdlog::warn("kubeflow runner: {} {}: {}", what, key, r.error().message);
                   }
                 },
                 o);
  }

  void on_job(const KubeflowKind& kind, const Object& job, bool deleted) {
    const std::string key = running_key(kind, job);
    const bool suspended = job.bool_at({"spec", "runPolicy", "suspend"}).value_or(false);
    const bool done = finished(job);
    const bool was_running = job.condition_true("Running");
    const std::string stamp = core::format_rfc3339(now());
    if (deleted || done || suspended) {
      if (!running.cancel(key)) return;
      if (!deleted && !done && suspended && was_running) {
        patch_status(kind, job, kubeflow_status(kind, job, KubeflowPhase::Suspended, stamp), "stop");
      }
      return;
    }
    // Start (or resume after a restart of kueuepp: the clock starts again).
    running.start(key, job.uid(), [&] {
      if (!was_running) patch_status(kind, job, kubeflow_status(kind, job, KubeflowPhase::Running, stamp), "start");
      std::weak_ptr<Impl> weak = weak_from_this();
      const KubeflowKind* k = &kind;
      return client.after(options.run_time(kubeflow_requested_duration(kind, job)), [weak, k, snapshot = job] {
        if (auto self = weak.lock()) self->complete(*k, snapshot);
      });
    });
  }

  void complete(const KubeflowKind& kind, const Object& job) {
    if (!running.finish(running_key(kind, job), job.uid())) return;
    const std::string stamp = core::format_rfc3339(now());
    patch_status(kind, job, kubeflow_status(kind, job, KubeflowPhase::Succeeded, stamp),
                 "complete");
  }
};

KubeflowRunner::KubeflowRunner(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
KubeflowRunner::~KubeflowRunner() { stop(); }

std::unique_ptr<KubeflowRunner> KubeflowRunner::start(kube::client::Client& client, JobRunnerOptions options) {
  auto impl = std::make_shared<Impl>(client, options);
  std::weak_ptr<Impl> weak = impl;
  for (const KubeflowKind& kind : kube::jobs::kubeflow_kinds()) {
    const KubeflowKind* k = &kind;
    const std::string plural = std::string(kind.resource->kind) + "s";
    impl->informers.push_back(start_crd_informer(
        client, *kind.resource,
        {"kubeflow runner", plural, fmt::format("no {} CRD yet; {} run once it is applied", kind.resource->kind, plural)},
        {{}, [weak, k](const Object& job, bool deleted) {
           if (auto self = weak.lock()) self->on_job(*k, job, deleted);
         }}));
  }
  return std::unique_ptr<KubeflowRunner>(new KubeflowRunner(std::move(impl)));
}

void KubeflowRunner::stop() {
  if (!impl_) return;
  for (auto& informer : impl_->informers) {
    if (informer) informer->stop();
  }
  impl_->running.close();
}

}  // namespace kueuepp::cmd
