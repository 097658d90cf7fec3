#include "kube/jobs/appwrapper.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

// Kueue's example appwrapper/pytorch-sample.yaml, verbatim: no declared pod sets, so
// they are inferred from the wrapped PyTorchJob.
constexpr std::string_view kPyTorchSample = R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: sample-appwrapper-pytorch-job
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  components:
  - template:
      apiVersion: "kubeflow.org/v1"
      kind: PyTorchJob
      metadata:
        name: pytorch-simple
      spec:
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            restartPolicy: OnFailure
            template:
              spec:
                containers:
                - name: pytorch
                  image: docker.io/kubeflowkatib/pytorch-mnist-cpu:v1beta1-fc858d1
                  command:
                  - "python3"
                  - "/opt/pytorch-mnist/mnist.py"
                  - "--epochs=1"
                  resources:
                    requests:
                      cpu: 1
          Worker:
            replicas: 1
            restartPolicy: OnFailure
            template:
              spec:
                containers:
                - name: pytorch
                  image: docker.io/kubeflowkatib/pytorch-mnist-cpu:v1beta1-fc858d1
                  command:
                  - "python3"
                  - "/opt/pytorch-mnist/mnist.py"
                  - "--epochs=1"
                  resources:
                    requests:
                      cpu: 1
)";

// Kueue's example appwrapper/deployment-sample.yaml, verbatim: declared pod sets.
constexpr std::string_view kDeploymentSample = R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: sample-appwrapper-deployment
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  components:
  - podSets:
    - path: "template.spec.template"
      replicas: 3
    template:
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: nginx-deployment
        labels:
          app: nginx
      spec:
        replicas: 3
        selector:
          matchLabels:
            app: nginx
        template:
          metadata:
            labels:
              app: nginx
          spec:
            containers:
              - name: nginx
                image: registry.k8s.io/nginx-slim:0.27
                ports:
                  - containerPort: 80
                resources:
                  requests:
                    cpu: "100m"
)";

client::Object stored(std::string_view sample) {
  client::Object o = object(sample);
  o.ensure({"metadata", "namespace"}) = "default";
  o.ensure({"metadata", "uid"}) = "uid-aw";
  o.ensure({"spec", "suspend"}) = true;
  return o;
}

std::string str(const json::value* v) { return v != nullptr && v->is_string() ? std::string(v->get_string()) : "<none>"; }

TEST(AppWrapper, PyTorchSamplePodSetsAreInferredNamedAfterTheAppWrapperWithKueuesDefaults) {
  auto sets = appwrapper_pod_sets(stored(kPyTorchSample));
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  ASSERT_EQ(sets->size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    const json::value& ps = (*sets)[i];
    EXPECT_EQ(json::get_string(ps, "name"), "sample-appwrapper-pytorch-job-" + std::to_string(i));
    EXPECT_EQ(ps.at("count"), 1);
    // The sample's `cpu: 1` (a JSON number) in canonical quantity text, as Kueue writes it.
    const json::value& first = json::find_path(ps, {"template", "spec", "containers"})->get_array()[0];
    EXPECT_EQ(str(&first.at_pointer("/resources/requests/cpu")), "1");
    // GetPodTemplateSpec's defaults, and the replica's restart policy is not the pod's.
    EXPECT_EQ(str(json::find_path(ps, {"template", "spec", "restartPolicy"})), "Always");
    EXPECT_EQ(str(json::find_path(ps, {"template", "spec", "schedulerName"})), "default-scheduler");
    EXPECT_EQ(*json::find_path(ps, {"template", "spec", "terminationGracePeriodSeconds"}), 30);
    const json::value& c = json::find_path(ps, {"template", "spec", "containers"})->get_array()[0];
    EXPECT_EQ(json::get_string(c, "imagePullPolicy"), "IfNotPresent");
    EXPECT_EQ(json::get_string(c, "terminationMessagePath"), "/dev/termination-log");
    EXPECT_EQ(c.at("command").as_array().size(), 3U);
    // The PyTorchJob's replica index label, as the AppWrapper project annotates the pod set.
    EXPECT_EQ(str(json::find_path(ps, {"topologyRequest", "podIndexLabel"})), "training.kubeflow.org/replica-index");
  }
  auto places = appwrapper_pod_set_places(stored(kPyTorchSample));
  ASSERT_TRUE(places.has_value());
  EXPECT_EQ((*places)[0].path, "template.spec.pytorchReplicaSpecs.Master.template");
  EXPECT_EQ((*places)[1].path, "template.spec.pytorchReplicaSpecs.Worker.template");

  // sha1("AppWrapper\nworkload.codeflare.dev\nsample-appwrapper-pytorch-job\nuid-aw")[:5], computed apart.
  auto wl = find_integration(kAppWrapperFramework)->build_workload(stored(kPyTorchSample), BuildOptions{});
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->name(), "appwrapper-sample-appwrapper-pytorch-job-19e1d");
  EXPECT_EQ(wl->string_at({"spec", "queueName"}), "user-queue");
}

TEST(AppWrapper, DeploymentSampleTakesItsDeclaredPodSets) {
  auto sets = appwrapper_pod_sets(stored(kDeploymentSample));
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  ASSERT_EQ(sets->size(), 1U);
  EXPECT_EQ(json::get_string((*sets)[0], "name"), "sample-appwrapper-deployment-0");
  EXPECT_EQ((*sets)[0].at("count"), 3);
  EXPECT_EQ(str(json::find_path((*sets)[0], {"template", "metadata", "labels", "app"})), "nginx");
  const json::value& c = json::find_path((*sets)[0], {"template", "spec", "containers"})->get_array()[0];
  EXPECT_EQ(str(&c.at_pointer("/resources/requests/cpu")), "100m");
  EXPECT_EQ(json::find(c, "ports"), nullptr) << "ports are not what Kueue compares";
  // No topology annotation and no pod index label: no topology request.
  EXPECT_EQ(json::find((*sets)[0], "topologyRequest"), nullptr);
}

TEST(AppWrapper, ARecordedComponentStatusIsAuthoritativeAndABatchJobIsInferred) {
  client::Object aw = object(R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: aw, namespace: ns, uid: u}
spec:
  components:
  - template:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: job}
      spec:
        parallelism: 4
        completions: 2
        template:
          spec:
            containers: [{name: c, image: busybox:latest, resources: {requests: {cpu: 0.5}}}]
)");
  auto sets = appwrapper_pod_sets(aw);
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  EXPECT_EQ((*sets)[0].at("count"), 2) << "parallelism capped by completions";
  const json::value& c = json::find_path((*sets)[0], {"template", "spec", "containers"})->get_array()[0];
  EXPECT_EQ(str(&c.at_pointer("/resources/requests/cpu")), "500m");
  EXPECT_EQ(json::get_string(c, "imagePullPolicy"), "Always") << "the latest tag is pulled every time";
  EXPECT_EQ(str(json::find_path((*sets)[0], {"topologyRequest", "podIndexLabel"})),
            "batch.kubernetes.io/job-completion-index");

  aw.ensure({"status", "componentStatus"}) =
      yaml("[{name: job, kind: Job, apiVersion: batch/v1, podSets: [{path: template.spec.template, replicas: 7}]}]");
  sets = appwrapper_pod_sets(aw);
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  EXPECT_EQ((*sets)[0].at("count"), 7);
}

TEST(AppWrapper, PodSetsThatCannotBeFoundAreRefusedNamingTheComponent) {
  client::Object unknown = object(R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: aw, namespace: ns}
spec:
  components:
  - template: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {}}
)");
  auto sets = appwrapper_pod_sets(unknown);
  ASSERT_FALSE(sets.has_value());
  EXPECT_NE(sets.error().message.find("spec.components[0]"), std::string::npos) << sets.error().message;
  EXPECT_NE(sets.error().message.find("declare them in podSets"), std::string::npos) << sets.error().message;

  client::Object bad_path = object(kDeploymentSample);
  bad_path.ensure({"spec", "components"}).as_array()[0].as_object()["podSets"] =
      yaml("[{path: 'template.spec.nothing[3]', replicas: 1}]");
  sets = appwrapper_pod_sets(bad_path);
  ASSERT_FALSE(sets.has_value());
  EXPECT_NE(sets.error().message.find("template.spec.nothing[3]"), std::string::npos) << sets.error().message;

  client::Object bad_quantity = object(kDeploymentSample);
  *appwrapper_path_value(bad_quantity.ensure({"spec", "components"}).as_array()[0],
                         "template.spec.template.spec.containers[0].resources.requests") = yaml("{cpu: lots}");
  sets = appwrapper_pod_sets(bad_quantity);
  ASSERT_FALSE(sets.has_value());
  EXPECT_NE(sets.error().message.find("requests.cpu"), std::string::npos) << sets.error().message;
}

TEST(AppWrapper, PathsFollowKeysAndIndexes) {
  json::value component = yaml("{template: {spec: {list: [{a: 1}, {b: {c: 2}}]}}}");
  EXPECT_EQ(*appwrapper_path_value(component, "template.spec.list[1].b.c"), 2);
  EXPECT_EQ(appwrapper_path_value(component, "template.spec.list[2]"), nullptr);
  EXPECT_EQ(appwrapper_path_value(component, "template.spec.list[x]"), nullptr);
  EXPECT_EQ(appwrapper_path_value(component, "spec.list"), nullptr) << "paths start at template";
  EXPECT_EQ(appwrapper_path_value(component, "template.spec..list"), nullptr);
  EXPECT_NE(appwrapper_path_value(component, "template"), nullptr);
}

TEST(AppWrapper, StartWritesPodSetInfosIntoTheComponentsAndStopClearsThem) {
  const JobIntegration& integration = *find_integration(kAppWrapperFramework);
  client::Object flavor = object("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: f}, "
                                 "spec: {nodeLabels: {pool: a}, tolerations: [{key: k, operator: Exists, effect: NoSchedule}]}}");
  FlavorLookup lookup = [&](std::string_view name) -> const client::Object* { return name == "f" ? &flavor : nullptr; };
  client::Object aw = stored(kPyTorchSample);
  client::Object wl = *integration.build_workload(aw, BuildOptions{});
  wl.ensure({"status", "admission"}) = yaml(R"(
clusterQueue: cq
podSetAssignments:
- {name: sample-appwrapper-pytorch-job-0, flavors: {cpu: f}, count: 1}
- {name: sample-appwrapper-pytorch-job-1, flavors: {cpu: f}, count: 1}
)");
  auto started = integration.start(aw, wl, lookup);
  ASSERT_TRUE(started.has_value()) << started.error().message;
  EXPECT_FALSE(integration.suspended(started->job));
  const json::value& component = started->job.find({"spec", "components"})->get_array()[0];
  const json::value* infos = json::find(component, "podSetInfos");
  ASSERT_NE(infos, nullptr);
  ASSERT_EQ(infos->as_array().size(), 2U);
  for (const json::value& info : infos->as_array()) {
    EXPECT_EQ(*json::find(info, "nodeSelector"), yaml("{pool: a}"));
    EXPECT_EQ(json::find(info, "tolerations")->as_array().size(), 1U);
  }
  EXPECT_EQ(str(json::find_path(infos->as_array()[1], {"labels", "kueue.x-k8s.io/podset"})),
            "sample-appwrapper-pytorch-job-1");
  // The wrapped templates are left alone: the AppWrapper controller applies the infos.
  EXPECT_EQ(appwrapper_path_value(component, "template.spec.pytorchReplicaSpecs.Master.template.spec.nodeSelector"),
            nullptr);
  EXPECT_TRUE(integration.equivalent(started->job, wl, lookup)) << "a started AppWrapper still matches its Workload";

  auto step = integration.stop(started->job, &wl);
  ASSERT_TRUE(step.has_value());
  EXPECT_TRUE(step->last);
  auto stopped = patch::merge_patch(started->job.json(), step->patch);
  ASSERT_TRUE(stopped.has_value());
  client::Object back(*stopped);
  EXPECT_TRUE(integration.suspended(back));
  EXPECT_EQ(back.json(), aw.json()) << "suspended with its podSetInfos cleared, as it was";
  EXPECT_FALSE(integration.stop(back, &wl).has_value()) << "nothing more to stop";

  wl.ensure({"status", "admission", "podSetAssignments"}).as_array().pop_back();
  auto refused = integration.start(aw, wl, lookup);
  ASSERT_FALSE(refused.has_value());
  EXPECT_TRUE(refused.error().permanent);
  EXPECT_EQ(refused.error().message, "invalid podset infos: expecting 2 podsets, got 1");
}

TEST(AppWrapper, ActiveFinishedAndReadyFollowItsPhaseAndConditions) {
  const JobIntegration& integration = *find_integration(kAppWrapperFramework);
  client::Object aw = stored(kPyTorchSample);
  EXPECT_FALSE(integration.active(aw));
  EXPECT_FALSE(integration.finished(aw).has_value());
  aw.ensure({"status"}) = yaml(R"(
phase: Running
conditions:
- {type: QuotaReserved, status: "True", reason: Resumed, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
- {type: ResourcesDeployed, status: "True", reason: Resumed, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
- {type: PodsReady, status: "True", reason: AllPodsReady, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
)");
  EXPECT_TRUE(integration.active(aw));
  EXPECT_TRUE(integration.pods_ready(aw));
  EXPECT_FALSE(integration.finished(aw).has_value());

  aw.ensure({"status", "phase"}) = "Failed";
  EXPECT_FALSE(integration.finished(aw).has_value()) << "its resources are still being deleted";
  aw.ensure({"status", "conditions"}).as_array()[1].as_object()["status"] = "False";
  ASSERT_TRUE(integration.finished(aw).has_value());
  EXPECT_FALSE(integration.finished(aw)->succeeded);
  EXPECT_EQ(integration.finished(aw)->message, "AppWrapper failed");

  aw.ensure({"status", "phase"}) = "Succeeded";
  ASSERT_TRUE(integration.finished(aw).has_value());
  EXPECT_TRUE(integration.finished(aw)->succeeded);
  EXPECT_EQ(integration.finished(aw)->message, "AppWrapper finished successfully");
  aw.ensure({"status", "conditions"}).as_array()[0].as_object()["status"] = "False";
  EXPECT_FALSE(integration.active(aw));
}

TEST(AppWrapper, PriorityComesFromTheFirstPodSetNamingAPriorityClass) {
  client::Object aw = stored(kPyTorchSample);
  *appwrapper_path_value(aw.ensure({"spec", "components"}).as_array()[0],
                         "template.spec.pytorchReplicaSpecs.Worker.template.spec") =
      yaml("{priorityClassName: high, containers: [{name: c, image: i}]}");
  BuildOptions options;
  options.priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    if (name == "high") return 1000;
    return std::nullopt;
  };
  auto prio = find_integration(kAppWrapperFramework)->priority(aw, options);
  ASSERT_TRUE(prio.has_value()) << prio.error().message;
  EXPECT_EQ(prio->value, 1000);
  // A class that does not exist is named with where the pods name it.
  options.priority_class = [](std::string_view) -> std::optional<std::int32_t> { return std::nullopt; };
  auto missing = find_integration(kAppWrapperFramework)->priority(aw, options);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find(
                "spec.components[0].template.spec.pytorchReplicaSpecs.Worker.template.spec.priorityClassName"),
            std::string::npos)
      << missing.error().message;
}

}  // namespace
}  // namespace kueuepp::kube::jobs
