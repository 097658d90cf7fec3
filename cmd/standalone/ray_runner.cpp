#include "cmd/standalone/ray_runner.hpp"

#include <spdlog/spdlog.h>


#include "cmd/standalone/crd_informer.hpp"
#include "cmd/standalone/running_jobs.hpp"
#include "core/model/time.hpp"
#include "kube/client/client.hpp"
#include "kube/client/informer.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::cmd {

using kube::client::Object;

namespace {

core::Time now() { return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()); }

std::string_view deployment_status(const Object& rayjob) { return rayjob.string_at({"status", "jobDeploymentStatus"}); }

bool finished(const Object& rayjob) {
  const std::string_view s = deployment_status(rayjob);
  return s == "Complete" || s == "Failed";
}

}  // namespace

json::object rayjob_status(const Object& rayjob, RayJobPhase phase, std::string_view now_text) {
  json::object status;
  switch (phase) {
    case RayJobPhase::Running:
      status["jobDeploymentStatus"] = "Running";
      status["jobStatus"] = "RUNNING";
      status["rayClusterName"] = std::string(rayjob.name()) + "-raycluster";
      status["rayClusterStatus"] = json::object{{"state", "ready"}};
      status["startTime"] = now_text;
      status["endTime"] = nullptr;
      status["message"] = nullptr;
      break;
    case RayJobPhase::Suspended:
      // KubeRay deletes the cluster and forgets the Ray job of a suspended RayJob.
      status["jobDeploymentStatus"] = "Suspended";
      status["jobStatus"] = nullptr;
      status["rayClusterName"] = nullptr;
      status["rayClusterStatus"] = nullptr;
      status["startTime"] = nullptr;
      break;
    case RayJobPhase::Complete:
      status["jobDeploymentStatus"] = "Complete";
      status["jobStatus"] = "SUCCEEDED";
      status["message"] = "Job finished successfully.";
      status["endTime"] = now_text;
      break;
  }
  return status;
}

json::object rayservice_status(const Object& service, bool serving, std::string_view now_text) {
  json::object ready{{"type", "Ready"}, {"lastTransitionTime", now_text}};
  json::object status;
  if (serving) {
    ready["status"] = "True";
    ready["reason"] = "NonZeroServeEndpoints";
    ready["message"] = "Number of serve endpoints is greater than 0";
    status["serviceStatus"] = "Running";
    status["numServeEndpoints"] = 1;
    status["activeServiceStatus"] = json::object{
        {"rayClusterName", std::string(service.name()) + "-raycluster"},
        {"rayClusterStatus", json::object{{"state", "ready"}}}};
  } else {
    ready["status"] = "False";
    ready["reason"] = "ZeroServeEndpoints";
    ready["message"] = "its RayCluster is suspended";
    status["serviceStatus"] = nullptr;
    status["numServeEndpoints"] = 0;
    status["activeServiceStatus"] = nullptr;
  }
  status["conditions"] = json::array{std::move(ready)};
  return status;
}

struct RayRunner::Impl : std::enable_shared_from_this<Impl> {
  kube::client::Client& client;
  JobRunnerOptions options;
  std::shared_ptr<kube::client::Informer> informer;
  std::shared_ptr<kube::client::Informer> cluster_informer;
  std::shared_ptr<kube::client::Informer> service_informer;
  RunningJobs running;  ///< RayJobs, by key

  Impl(kube::client::Client& c, JobRunnerOptions o) : client(c), options(o) {}

  void patch_status(const Object& rayjob, json::object status, std::string what) {
    kube::client::PatchOptions o;
    o.status_subresource = true;
    o.field_manager = "kueuepp-ray-runner";
    client.patch(kube::client::resources::kRayJob, rayjob.namespace_name(), rayjob.name(),
                 kube::client::PatchType::Merge, json::object{{"status", std::move(status)}},
                 [key = rayjob.key(), what](kube::client::Result<Object> r) {
                   if (!r && !r.error().is_not_found()) {
                     spdlog::warn("ray runner: {} RayJob {}: {}", what, key, r.error().message);
                   }
                 },
                 o);
  }

  void on_rayjob(const Object& rayjob, bool deleted) {
    const std::string key = rayjob.key();
    const bool suspended = rayjob.bool_at({"spec", "suspend"}).value_or(false);
    const bool done = finished(rayjob);
    const std::string stamp = core::format_rfc3339(now());
    if (deleted || done || suspended) {
      if (!running.cancel(key)) return;
      if (!deleted && !done && suspended && deployment_status(rayjob) != "Suspended") {
        patch_status(rayjob, rayjob_status(rayjob, RayJobPhase::Suspended, stamp), "suspend");
      }
      return;
    }
    // Start (or resume after a restart of kueuepp: the clock starts again).
    running.start(key, rayjob.uid(), [&] {
      if (deployment_status(rayjob) != "Running") {
        patch_status(rayjob, rayjob_status(rayjob, RayJobPhase::Running, stamp), "start");
      }
      std::weak_ptr<Impl> weak = weak_from_this();
      return client.after(options.run_time(std::nullopt), [weak, snapshot = rayjob] {
        if (auto self = weak.lock()) self->complete(snapshot);
      });
    });
  }

  // A RayCluster serves until deleted: ready while unsuspended, suspended otherwise.
  void on_raycluster(const Object& cluster) {
    const bool suspended = cluster.bool_at({"spec", "suspend"}).value_or(false);
    const std::string_view want = suspended ? "suspended" : "ready";
    if (cluster.string_at({"status", "state"}) == want) return;
    if (running.closed()) return;
    kube::client::PatchOptions o;
    o.status_subresource = true;
    o.field_manager = "kueuepp-ray-runner";
    json::object status{{"state", want}};
    client.patch(kube::client::resources::kRayCluster, cluster.namespace_name(), cluster.name(),
                 kube::client::PatchType::Merge, json::object{{"status", std::move(status)}},
                 [key = cluster.key()](kube::client::Result<Object> r) {
                   if (!r && !r.error().is_not_found()) spdlog::warn("ray runner: RayCluster {}: {}", key, r.error().message);
                 },
                 o);
  }

  // A RayService serves until deleted: Ready while its cluster is unsuspended.
  void on_rayservice(const Object& service) {
    const bool serving = !service.bool_at({"spec", "rayClusterConfig", "suspend"}).value_or(false);
    if (service.condition_true("Ready") == serving && service.condition("Ready").has_value()) return;
    if (running.closed()) return;
    kube::client::PatchOptions o;
    o.status_subresource = true;
    o.field_manager = "kueuepp-ray-runner";
    json::object status = rayservice_status(service, serving, core::format_rfc3339(now()));
    client.patch(kube::client::resources::kRayService, service.namespace_name(), service.name(),
                 kube::client::PatchType::Merge, json::object{{"status", std::move(status)}},
                 [key = service.key()](kube::client::Result<Object> r) {
                   if (!r && !r.error().is_not_found()) spdlog::warn("ray runner: RayService {}: {}", key, r.error().message);
                 },
                 o);
  }

  void complete(const Object& rayjob) {
    if (!running.finish(rayjob.key(), rayjob.uid())) return;
    patch_status(rayjob, rayjob_status(rayjob, RayJobPhase::Complete, core::format_rfc3339(now())), "complete");
  }
};

RayRunner::RayRunner(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
RayRunner::~RayRunner() { stop(); }

std::unique_ptr<RayRunner> RayRunner::start(kube::client::Client& client, JobRunnerOptions options) {
  auto impl = std::make_shared<Impl>(client, options);
  std::weak_ptr<Impl> weak = impl;
  impl->informer = start_crd_informer(
      client, kube::client::resources::kRayJob,
      {"ray runner", "RayJobs", "no RayJob CRD yet; RayJobs run once it is applied"},
      {{}, [weak](const Object& rayjob, bool deleted) {
         if (auto self = weak.lock()) self->on_rayjob(rayjob, deleted);
       }});
  impl->cluster_informer = start_crd_informer(
      client, kube::client::resources::kRayCluster, {"ray runner", "RayClusters", "no RayCluster CRD yet"},
      {{}, [weak](const Object& cluster, bool deleted) {
         if (auto self = weak.lock(); self && !deleted) self->on_raycluster(cluster);
       }});
  impl->service_informer = start_crd_informer(
      client, kube::client::resources::kRayService, {"ray runner", "RayServices", "no RayService CRD yet"},
      {{}, [weak](const Object& service, bool deleted) {
         if (auto self = weak.lock(); self && !deleted) self->on_rayservice(service);
       }});
  return std::unique_ptr<RayRunner>(new RayRunner(std::move(impl)));
}

void RayRunner::stop() {
  if (!impl_) return;
  if (impl_->informer) impl_->informer->stop();
  if (impl_->cluster_informer) impl_->cluster_informer->stop();
  if (impl_->service_informer) impl_->service_informer->stop();
  impl_->running.close();
}

}  // namespace kueuepp::cmd
