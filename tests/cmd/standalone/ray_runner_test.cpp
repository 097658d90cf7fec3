#include "cmd/standalone/ray_runner.hpp"

#include <gtest/gtest.h>

#include <string>

#include "kube/apiserver/patch/patch.hpp"
#include "kube/jobs/ray_job.hpp"
#include "kube/jobs/ray_service.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::cmd {
namespace {

using kube::client::Object;

constexpr std::string_view kT0 = "2026-01-01T00:00:00Z";

Object rayjob() {
  auto v = json::parse_yaml(R"(
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: rj, namespace: ns, uid: u1}
spec:
  suspend: false
  rayClusterSpec:
    headGroupSpec: {template: {spec: {containers: [{name: head}]}}}
)");
  EXPECT_TRUE(v.has_value());
  return Object(*v);
}

/// The RayJob once the runner's status is merge-patched over `job`'s, as the server does.
Object with_status(const Object& job, RayJobPhase phase) {
  auto patched = kube::patch::merge_patch(job.json(), json::object{{"status", rayjob_status(job, phase, kT0)}});
  EXPECT_TRUE(patched.has_value());
  return Object(*patched);
}

TEST(RayRunner, EachPhaseIsWhatKueuesAdapterReadsAsIt) {
  const kube::jobs::JobIntegration& kueue = kube::jobs::rayjob_integration();
  Object running = with_status(rayjob(), RayJobPhase::Running);
  EXPECT_TRUE(kueue.active(running));
  EXPECT_TRUE(kueue.pods_ready(running));
  EXPECT_FALSE(kueue.finished(running).has_value());

  // Suspended over the running status (an eviction): nothing active, the cluster gone.
  Object suspended = with_status(running, RayJobPhase::Suspended);
  EXPECT_FALSE(kueue.active(suspended));
  EXPECT_FALSE(kueue.pods_ready(suspended));
  EXPECT_EQ(suspended.find({"status", "jobStatus"}), nullptr);
  EXPECT_FALSE(kueue.finished(suspended).has_value());

  Object complete = with_status(with_status(suspended, RayJobPhase::Running), RayJobPhase::Complete);
  auto finish = kueue.finished(complete);
  ASSERT_TRUE(finish.has_value());
  EXPECT_TRUE(finish->succeeded);
  EXPECT_EQ(finish->message, "Job finished successfully.");
}

}  // namespace
}  // namespace kueuepp::cmd

namespace kueuepp::cmd {
namespace {

Object rayservice(bool suspended) {
  auto v = json::parse_yaml(std::string(R"(
apiVersion: ray.io/v1
kind: RayService
metadata: {name: svc, namespace: ns, uid: u2}
spec:
  rayClusterConfig:
    suspend: )") + (suspended ? "true" : "false") + R"(
    headGroupSpec: {template: {spec: {containers: [{name: head}]}}}
)");
  EXPECT_TRUE(v.has_value());
  return Object(*v);
}

Object with_service_status(const Object& service, bool serving) {
  auto patched =
      kube::patch::merge_patch(service.json(), json::object{{"status", rayservice_status(service, serving, kT0)}});
  EXPECT_TRUE(patched.has_value());
  return Object(*patched);
}

TEST(RayRunner, AServiceServesAsKueuesAdapterReadsItAndNeverEnds) {
  const kube::jobs::JobIntegration& kueue = kube::jobs::rayservice_integration();
  Object serving = with_service_status(rayservice(false), true);
  EXPECT_TRUE(kueue.active(serving));
  EXPECT_TRUE(kueue.pods_ready(serving));
  EXPECT_FALSE(kueue.finished(serving).has_value());
  EXPECT_EQ(serving.string_at({"status", "activeServiceStatus", "rayClusterName"}), "svc-raycluster");

  // Its cluster suspended over the serving status (an eviction): not Ready, no endpoint.
  Object stopped = with_service_status(serving, false);
  EXPECT_FALSE(kueue.active(stopped));
  EXPECT_FALSE(kueue.pods_ready(stopped));
  EXPECT_EQ(stopped.find({"status", "activeServiceStatus"}), nullptr);
  EXPECT_FALSE(kueue.finished(stopped).has_value());
}

}  // namespace
}  // namespace kueuepp::cmd
