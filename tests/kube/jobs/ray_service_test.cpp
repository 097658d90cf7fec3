#include "kube/jobs/ray_service.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

// Kueue's example ray-service-sample.yaml, verbatim.
constexpr std::string_view kRayServiceSample = R"(
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: test-rayservice
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  # serveConfigV2 takes a yaml multi-line scalar, which should be a Ray Serve multi-application config. See https://docs.ray.io/en/latest/serve/multi-app.html.
  serveConfigV2: |
    applications:
      - name: fruit_app
        import_path: fruit.deployment_graph
        route_prefix: /fruit
        runtime_env:
          working_dir: "https://github.com/ray-project/test_dag/archive/78b4a5da38796123d9f9ffff59bab2792a043e95.zip"
        deployments:
          - name: MangoStand
            num_replicas: 2
            max_replicas_per_node: 1
            user_config:
              price: 3
            ray_actor_options:
              num_cpus: 0.1
          - name: OrangeStand
            num_replicas: 1
            user_config:
              price: 2
            ray_actor_options:
              num_cpus: 0.1
          - name: PearStand
            num_replicas: 1
            user_config:
              price: 1
            ray_actor_options:
              num_cpus: 0.1
          - name: FruitMarket
            num_replicas: 1
            ray_actor_options:
              num_cpus: 0.1
      - name: math_app
        import_path: conditional_dag.serve_dag
        route_prefix: /calc
        runtime_env:
          working_dir: "https://github.com/ray-project/test_dag/archive/78b4a5da38796123d9f9ffff59bab2792a043e95.zip"
        deployments:
          - name: Adder
            num_replicas: 1
            user_config:
              increment: 3
            ray_actor_options:
              num_cpus: 0.1
          - name: Multiplier
            num_replicas: 1
            user_config:
              factor: 5
            ray_actor_options:
              num_cpus: 0.1
          - name: Router
            num_replicas: 1
  rayClusterConfig:
    rayVersion: '2.46.0' # should match the Ray version in the image of the containers
    ######################headGroupSpecs#################################
    # Ray head pod template.
    headGroupSpec:
      # The `rayStartParams` are used to configure the `ray start` command.
      # See https://github.com/ray-project/kuberay/blob/master/docs/guidance/rayStartParams.md for the default settings of `rayStartParams` in KubeRay.
      # See https://docs.ray.io/en/latest/cluster/cli.html#ray-start for all available options in `rayStartParams`.
      rayStartParams: {}
      #pod template
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.46.0
            resources:
              limits:
                cpu: 4
                memory: 6Gi
              requests:
                cpu: 2
                memory: 4Gi
    workerGroupSpecs:
    # the pod replicas in this group typed worker
    - replicas: 1
      minReplicas: 1
      maxReplicas: 5
      # logical group name, for this called small-group, also can be functional
      groupName: small-group
      # The `rayStartParams` are used to configure the `ray start` command.
      # See https://github.com/ray-project/kuberay/blob/master/docs/guidance/rayStartParams.md for the default settings of `rayStartParams` in KubeRay.
      # See https://docs.ray.io/en/latest/cluster/cli.html#ray-start for all available options in `rayStartParams`.
      rayStartParams: {}
      #pod template
      template:
        spec:
          containers:
          - name: ray-worker # must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc'
            image: rayproject/ray:2.46.0
            resources:
              limits:
                cpu: "2"
                memory: "4Gi"
              requests:
                cpu: "1"
                memory: "2Gi")";

client::Object stored() {
  client::Object o = object(kRayServiceSample);
  o.ensure({"metadata", "uid"}) = "uid-rayservice";
  o.ensure({"spec", "rayClusterConfig", "suspend"}) = true;
  return o;
}

client::Object flavor_a() {
  return object("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: f}, "
                "spec: {nodeLabels: {pool: a}, tolerations: [{key: dedicated, operator: Equal, value: ray, effect: NoSchedule}]}}");
}

/// The Workload Kueue would build for the sample, admitted on flavor f.
client::Object admitted_workload(const client::Object& service) {
  client::Object wl = *rayservice_integration().build_workload(service, BuildOptions{});
  wl.ensure({"status", "admission"}) = yaml(R"(
clusterQueue: cq
podSetAssignments:
- {name: head, flavors: {cpu: f, memory: f}, count: 1}
- {name: small-group, flavors: {cpu: f, memory: f}, count: 1}
)");
  return wl;
}

/// The value at `path`, or null when there is none (a copy, so a check never dereferences nothing).
json::value at_or_null(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* found = json::find_path(v, path);
  return found != nullptr ? *found : json::value(nullptr);
}

const json::value* head_template(const client::Object& service) {
  return service.find({"spec", "rayClusterConfig", "headGroupSpec", "template"});
}

const json::value* worker_template(const client::Object& service) {
  return json::find(service.find({"spec", "rayClusterConfig", "workerGroupSpecs"})->get_array()[0], "template");
}

TEST(RayService, PodSetsAreThoseOfItsClusterAndTheWorkloadIsNamedAsKueueNamesIt) {
  const JobIntegration* integration = find_integration("ray.io/rayservice");
  ASSERT_NE(integration, nullptr);
  EXPECT_EQ(integration->resource().kind, "RayService");
  auto sets = rayservice_pod_sets(stored());
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  ASSERT_EQ(sets->size(), 2U);
  EXPECT_EQ(json::get_string((*sets)[0], "name"), "head");
  EXPECT_EQ((*sets)[0].at("count"), 1);
  EXPECT_EQ(*json::find_path((*sets)[0], {"template", "spec", "containers"}),
            *json::find_path(*head_template(stored()), {"spec", "containers"}));
  EXPECT_EQ(json::get_string((*sets)[1], "name"), "small-group");
  EXPECT_EQ((*sets)[1].at("count"), 1);
  // sha1("RayService\nray.io\ntest-rayservice\nuid-rayservice")[:5], computed apart.
  auto wl = integration->build_workload(stored(), BuildOptions{});
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->name(), "rayservice-test-rayservice-36e15");
  EXPECT_EQ(wl->controller_reference()->kind, "RayService");
  EXPECT_EQ(wl->string_at({"spec", "queueName"}), "user-queue");
}

TEST(RayService, AutoscalingCountsKueuesAutoscalerSidecarInTheHead) {
  client::Object service = stored();
  service.ensure({"spec", "rayClusterConfig", "enableInTreeAutoscaling"}) = true;
  auto sets = rayservice_pod_sets(service);
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  const json::array& containers = json::find_path((*sets)[0], {"template", "spec", "containers"})->get_array();
  ASSERT_EQ(containers.size(), 2U);
  EXPECT_EQ(json::get_string(containers[1], "name"), "autoscaler");
}

TEST(RayService, WithoutAClusterConfigItCannotBeQueuedAndSaysWhy) {
  client::Object service = stored();
  service.ensure({"spec"}).as_object().erase("rayClusterConfig");
  auto sets = rayservice_pod_sets(service);
  ASSERT_FALSE(sets.has_value());
  EXPECT_NE(sets.error().message.find("RayService default/test-rayservice: spec.rayClusterConfig is missing"),
            std::string::npos)
      << sets.error().message;
}

TEST(RayService, StartsItsClusterWithTheFlavorAndRestoresItAtStop) {
  const JobIntegration& integration = rayservice_integration();
  const client::Object flavor = flavor_a();
  FlavorLookup lookup = [&](std::string_view name) -> const client::Object* { return name == "f" ? &flavor : nullptr; };
  const client::Object service = stored();
  EXPECT_TRUE(integration.suspended(service));
  const client::Object wl = admitted_workload(service);

  auto started = integration.start(service, wl, lookup);
  ASSERT_TRUE(started.has_value()) << started.error().message;
  EXPECT_FALSE(integration.suspended(started->job));
  EXPECT_EQ(started->job.find({"spec", "suspend"}), nullptr) << "the service's own flag is not Kueue's";
  for (const json::value* tmpl : {head_template(started->job), worker_template(started->job)}) {
    EXPECT_EQ(at_or_null(*tmpl, {"spec", "nodeSelector"}), yaml("{pool: a}"));
    EXPECT_EQ(at_or_null(*tmpl, {"spec", "tolerations"}),
              yaml("[{key: dedicated, operator: Equal, value: ray, effect: NoSchedule}]"));
  }
  // The write is a merge patch of the cluster config only.
  EXPECT_EQ(at_or_null(started->patch, {"spec", "rayClusterConfig", "suspend"}), json::value(false));
  EXPECT_EQ(json::find_path(started->patch, {"spec", "serveConfigV2"}), nullptr);

  auto step = integration.stop(started->job, &wl);
  ASSERT_TRUE(step.has_value());
  EXPECT_TRUE(step->last);
  auto stopped = patch::merge_patch(started->job.json(), step->patch);
  ASSERT_TRUE(stopped.has_value());
  EXPECT_EQ(at_or_null(*stopped, {"spec", "rayClusterConfig", "suspend"}), json::value(true));
  EXPECT_EQ(json::find_path(*stopped, {"spec", "rayClusterConfig", "headGroupSpec", "template", "spec", "nodeSelector"}),
            nullptr);
  EXPECT_EQ(json::find_path(*stopped, {"spec", "rayClusterConfig", "headGroupSpec", "template", "spec", "tolerations"}),
            nullptr);
  const json::value* worker = json::find(json::find_path(*stopped, {"spec", "rayClusterConfig", "workerGroupSpecs"})
                                             ->get_array()[0],
                                         "template");
  EXPECT_EQ(json::find_path(*worker, {"spec", "nodeSelector"}), nullptr);
  EXPECT_EQ(json::find_path(*worker, {"spec", "tolerations"}), nullptr);
  EXPECT_EQ(*json::find_path(*stopped, {"spec", "serveConfigV2"}), *service.find({"spec", "serveConfigV2"}));
  EXPECT_FALSE(integration.stop(client::Object(*stopped), &wl).has_value()) << "nothing more to write";
}

TEST(RayService, AStartForAnotherShapeIsRefused) {
  const client::Object flavor = flavor_a();
  FlavorLookup lookup = [&](std::string_view name) -> const client::Object* { return name == "f" ? &flavor : nullptr; };
  client::Object wl = admitted_workload(stored());
  wl.ensure({"status", "admission", "podSetAssignments"}).as_array().pop_back();
  auto started = rayservice_integration().start(stored(), wl, lookup);
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().message, "invalid podset infos: expecting 2 podset, got 1");
}

TEST(RayService, ActiveAndReadyWhileReadyAndNeverFinished) {
  const JobIntegration& integration = rayservice_integration();
  client::Object service = stored();
  EXPECT_FALSE(integration.active(service));
  EXPECT_FALSE(integration.pods_ready(service));
  service.ensure({"status"}) = yaml(R"({serviceStatus: Running, conditions: [{type: Ready, status: "True",
      reason: NonZeroServeEndpoints, lastTransitionTime: "2026-01-01T00:00:00Z"}]})");
  EXPECT_TRUE(integration.active(service));
  EXPECT_TRUE(integration.pods_ready(service));
  EXPECT_FALSE(integration.finished(service).has_value()) << "a service serves until it is deleted";
  service.ensure({"status"}) = yaml(R"({conditions: [{type: Ready, status: "False", reason: ZeroServeEndpoints,
      lastTransitionTime: "2026-01-01T00:00:00Z"}]})");
  EXPECT_FALSE(integration.active(service));
  EXPECT_FALSE(integration.finished(service).has_value());
}

TEST(RayService, PriorityFromTheFirstPodTemplateNamingAClass) {
  const JobIntegration& integration = rayservice_integration();
  BuildOptions options;
  options.priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    if (name == "high") return 1000;
    return std::nullopt;
  };
  client::Object service = stored();
  service.ensure({"spec", "rayClusterConfig", "workerGroupSpecs"}).as_array()[0].as_object()["template"]
      .as_object()["spec"].as_object()["priorityClassName"] = "high";
  auto prio = integration.priority(service, options);
  ASSERT_TRUE(prio.has_value()) << prio.error().message;
  EXPECT_EQ(prio->value, 1000);
  service.ensure({"spec", "rayClusterConfig", "workerGroupSpecs"}).as_array()[0].as_object()["template"]
      .as_object()["spec"].as_object()["priorityClassName"] = "missing";
  auto missing = integration.priority(service, options);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("spec.rayClusterConfig.workerGroupSpecs[0].template.spec.priorityClassName"),
            std::string::npos)
      << missing.error().message;
}

TEST(RayService, AnUnchangedServiceIsEquivalentToItsWorkload) {
  const JobIntegration& integration = rayservice_integration();
  FlavorLookup none = [](std::string_view) -> const client::Object* { return nullptr; };
  const client::Object service = stored();
  client::Object wl = *integration.build_workload(service, BuildOptions{});
  EXPECT_TRUE(integration.equivalent(service, wl, none));
  client::Object grown = service;
  grown.ensure({"spec", "rayClusterConfig", "workerGroupSpecs"}).as_array()[0].as_object()["replicas"] = 3;
  EXPECT_FALSE(integration.equivalent(grown, wl, none));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
