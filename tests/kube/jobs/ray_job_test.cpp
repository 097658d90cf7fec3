#include "kube/jobs/ray_job.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

// Kueue's example ray-job-sample.yaml, verbatim.
constexpr std::string_view kRayJobSample = R"(
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: rayjob-sample
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  shutdownAfterJobFinishes: true
  # submissionMode specifies how RayJob submits the Ray job to the RayCluster.
  # The default value is "K8sJobMode", meaning RayJob will submit the Ray job via a submitter Kubernetes Job.
  # The alternative value is "HTTPMode", indicating that KubeRay will submit the Ray job by sending an HTTP request to the RayCluster.
  # submissionMode: "K8sJobMode"
  entrypoint: python /home/ray/samples/sample_code.py
  # shutdownAfterJobFinishes specifies whether the RayCluster should be deleted after the RayJob finishes. Default is false.
  # shutdownAfterJobFinishes: false

  # ttlSecondsAfterFinished specifies the number of seconds after which the RayCluster will be deleted after the RayJob finishes.
  # ttlSecondsAfterFinished: 10

  # activeDeadlineSeconds is the duration in seconds that the RayJob may be active before
  # KubeRay actively tries to terminate the RayJob; value must be positive integer.
  # activeDeadlineSeconds: 120

  # RuntimeEnvYAML represents the runtime environment configuration provided as a multi-line YAML string.
  # See https://docs.ray.io/en/latest/ray-core/handling-dependencies.html for details.
  # (New in KubeRay version 1.0.)
  runtimeEnvYAML: |
    pip:
      - requests==2.26.0
      - pendulum==2.1.2
    env_vars:
      counter_name: "test_counter"

  # Suspend specifies whether the RayJob controller should create a RayCluster instance.
  # If a job is applied with the suspend field set to true, the RayCluster will not be created and we will wait for the transition to false.
  # If the RayCluster is already created, it will be deleted. In the case of transition to false, a new RayCluste rwill be created.
  # suspend: false

  # rayClusterSpec specifies the RayCluster instance to be created by the RayJob controller.
  rayClusterSpec:
    rayVersion: '2.9.0' # should match the Ray version in the image of the containers
    # Ray head pod template
    headGroupSpec:
      # The `rayStartParams` are used to configure the `ray start` command.
      # See https://github.com/ray-project/kuberay/blob/master/docs/guidance/rayStartParams.md for the default settings of `rayStartParams` in KubeRay.
      # See https://docs.ray.io/en/latest/cluster/cli.html#ray-start for all available options in `rayStartParams`.
      rayStartParams:
        dashboard-host: '0.0.0.0'
      #pod template
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.9.0
              ports:
                - containerPort: 6379
                  name: gcs-server
                - containerPort: 8265 # Ray dashboard
                  name: dashboard
                - containerPort: 10001
                  name: client
              resources:
                limits:
                  cpu: "1"
                requests:
                  cpu: "1"
              volumeMounts:
                - mountPath: /home/ray/samples
                  name: code-sample
          volumes:
            # You set volumes at the Pod level, then mount them into containers inside that Pod
            - name: code-sample
              configMap:
                # Provide the name of the ConfigMap you want to mount.
                name: ray-job-code-sample
                # An array of keys from the ConfigMap to create as files
                items:
                  - key: sample_code.py
                    path: sample_code.py
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
                image: rayproject/ray:2.9.0
                lifecycle:
                  preStop:
                    exec:
                      command: [ "/bin/sh","-c","ray stop" ]
                resources:
                  limits:
                    cpu: "1"
                  requests:
                    cpu: "1"
  # SubmitterPodTemplate is the template for the pod that will run the `ray job submit` command against the RayCluster.
  # If SubmitterPodTemplate is specified, the first container is assumed to be the submitter container.
  # submitterPodTemplate:
  #   spec:
  #     restartPolicy: Never
  #     containers:
  #       - name: my-custom-rayjob-submitter-pod
  #         image: rayproject/ray:2.9.0
  #         # If Command is not specified, the correct command will be supplied at runtime using the RayJob spec `entrypoint` field.
  #         # Specifying Command is not recommended.
  #         # command: ["sh", "-c", "ray job submit --address=http://$RAY_DASHBOARD_ADDRESS --submission-id=$RAY_JOB_SUBMISSION_ID -- echo hello world"])";

constexpr std::string_view kOnDemand = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec:
  nodeLabels: {instance-type: on-demand}
)";

class RayJobTest : public ::testing::Test {
 protected:
  const JobIntegration& integration = *find_integration("ray.io/rayjob");
  client::Object flavor = object(kOnDemand);
  FlavorLookup lookup = [this](std::string_view name) -> const client::Object* {
    return name == "on-demand" ? &flavor : nullptr;
  };

  /// The sample as the API server stores it: a namespace, a uid, the CRD's default
  /// submissionMode and the suspend Kueue's webhook adds.
  client::Object stored(std::string_view mode = "K8sJobMode") {
    client::Object o = object(kRayJobSample);
    o.ensure({"metadata", "namespace"}) = "default";
    o.ensure({"metadata", "uid"}) = "uid-rayjob";
    o.ensure({"spec", "submissionMode"}) = mode;
    o.ensure({"spec", "suspend"}) = true;
    return o;
  }

  /// The Workload admitted with every pod set on on-demand.
  client::Object admitted(const client::Object& rayjob) {
    auto wl = integration.build_workload(rayjob, BuildOptions{});
    EXPECT_TRUE(wl.has_value()) << wl.error().message;
    client::Object out = *wl;
    json::array assignments;
    for (const json::value& ps : out.find({"spec", "podSets"})->get_array()) {
      json::object a;
      a["name"] = json::get_string(ps, "name");
      a["flavors"] = json::object{{"cpu", "on-demand"}, {"memory", "on-demand"}};
      a["count"] = ps.at("count");
      assignments.push_back(std::move(a));
    }
    out.ensure({"status", "admission", "clusterQueue"}) = "cluster-queue";
    out.ensure({"status", "admission", "podSetAssignments"}) = std::move(assignments);
    return out;
  }

  static const json::value* selector(const client::Object& o, std::initializer_list<std::string_view> tmpl) {
    const json::value* at = &o.json();
    for (std::string_view k : tmpl) {
      at = json::find(*at, k);
      if (at == nullptr) return nullptr;
    }
    if (at->is_array()) return nullptr;
    return json::find_path(*at, {"spec", "nodeSelector"});
  }
};

TEST_F(RayJobTest, PodSetsAreHeadWorkerGroupsThenSubmitterAsKueueDerivesThem) {
  auto sets = rayjob_pod_sets(stored());
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  ASSERT_EQ(sets->size(), 3U);
  EXPECT_EQ(json::get_string((*sets)[0], "name"), "head");
  EXPECT_EQ((*sets)[0].at("count"), 1);
  EXPECT_EQ(json::get_string((*sets)[1], "name"), "small-group");
  EXPECT_EQ((*sets)[1].at("count"), 1) << "replicas count, not minReplicas or maxReplicas";
  EXPECT_EQ(json::get_string((*sets)[2], "name"), "submitter");
  EXPECT_EQ((*sets)[2].at("count"), 1);
  EXPECT_EQ(*json::find_path((*sets)[2], {"template", "spec", "containers"}), yaml(R"(
- name: ray-job-submitter
  image: rayproject/ray:2.9.0
  resources:
    limits: {cpu: "1", memory: 1Gi}
    requests: {cpu: 500m, memory: 200Mi}
)"));
  for (const json::value& ps : *sets) EXPECT_EQ(json::find(ps, "topologyRequest"), nullptr);
}

TEST_F(RayJobTest, HttpModeHasNoSubmitterPodSetAndSidecarModeCountsItInTheHead) {
  auto http = rayjob_pod_sets(stored("HTTPMode"));
  ASSERT_TRUE(http.has_value());
  EXPECT_EQ(http->size(), 2U);
  auto sidecar = rayjob_pod_sets(stored("SidecarMode"));
  ASSERT_TRUE(sidecar.has_value());
  ASSERT_EQ(sidecar->size(), 2U);
  const json::array& head = json::find_path((*sidecar)[0], {"template", "spec", "containers"})->get_array();
  ASSERT_EQ(head.size(), 2U);
  EXPECT_EQ(json::get_string(head[1], "name"), "ray-job-submitter");
}

TEST_F(RayJobTest, WorkerCountIsReplicasTimesHostsAndAutoscalingAddsTheAutoscalerToTheHead) {
  client::Object job = stored();
  job.ensure({"spec", "rayClusterSpec", "workerGroupSpecs"}).as_array()[0].as_object()["replicas"] = 3;
  job.ensure({"spec", "rayClusterSpec", "workerGroupSpecs"}).as_array()[0].as_object()["numOfHosts"] = 2;
  job.ensure({"spec", "rayClusterSpec", "enableInTreeAutoscaling"}) = true;
  auto sets = rayjob_pod_sets(job);
  ASSERT_TRUE(sets.has_value());
  EXPECT_EQ((*sets)[1].at("count"), 6);
  const json::array& head = json::find_path((*sets)[0], {"template", "spec", "containers"})->get_array();
  ASSERT_EQ(head.size(), 2U);
  EXPECT_EQ(json::get_string(head[1], "name"), "autoscaler");
}

TEST_F(RayJobTest, WorkloadIsNamedAsKueueNamesIt) {
  // sha1("RayJob\nray.io\nrayjob-sample\nuid-rayjob")[:5], computed apart.
  auto wl = integration.build_workload(stored(), BuildOptions{});
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->name(), "rayjob-rayjob-sample-6b15c");
  EXPECT_EQ(wl->string_at({"spec", "queueName"}), "user-queue");
}

TEST_F(RayJobTest, StartInjectsTheFlavorEverywhereAndStopRestores) {
  client::Object job = stored();
  client::Object wl = admitted(job);
  auto started = integration.start(job, wl, lookup);
  ASSERT_TRUE(started.has_value()) << started.error().message;
  const client::Object& running = started->job;
  EXPECT_FALSE(integration.suspended(running));
  const json::value expected = yaml("{instance-type: on-demand}");
  ASSERT_NE(selector(running, {"spec", "rayClusterSpec", "headGroupSpec", "template"}), nullptr);
  EXPECT_EQ(*selector(running, {"spec", "rayClusterSpec", "headGroupSpec", "template"}), expected);
  const json::value& worker = running.find({"spec", "rayClusterSpec", "workerGroupSpecs"})->get_array()[0];
  EXPECT_EQ(*json::find_path(worker, {"template", "spec", "nodeSelector"}), expected);
  ASSERT_NE(selector(running, {"spec", "submitterPodTemplate"}), nullptr) << "the default submitter is written";
  EXPECT_EQ(*selector(running, {"spec", "submitterPodTemplate"}), expected);

  auto stop = integration.stop(running, &wl);
  ASSERT_TRUE(stop.has_value());
  auto stopped_json = patch::merge_patch(running.json(), stop->patch);
  ASSERT_TRUE(stopped_json.has_value());
  client::Object stopped = running;
  stopped.ensure({"spec"}) = stopped_json->at("spec");
  EXPECT_TRUE(integration.suspended(stopped));
  EXPECT_EQ(selector(stopped, {"spec", "rayClusterSpec", "headGroupSpec", "template"}), nullptr);
  const json::value& restored = stopped.find({"spec", "rayClusterSpec", "workerGroupSpecs"})->get_array()[0];
  EXPECT_EQ(json::find_path(restored, {"template", "spec", "nodeSelector"}), nullptr);
  EXPECT_EQ(selector(stopped, {"spec", "submitterPodTemplate"}), nullptr);
}

TEST_F(RayJobTest, AnAdmissionOfOtherPodSetsIsRefused) {
  client::Object wl = admitted(stored("HTTPMode"));
  auto started = integration.start(stored(), wl, lookup);
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().message, "invalid podset infos: expecting 3 podset, got 2");
}

TEST_F(RayJobTest, StatusIsReadAsKueueReadsIt) {
  client::Object job = stored();
  EXPECT_TRUE(integration.active(job)) << "Kueue counts a RayJob without a deployment status as active";
  job.ensure({"status", "jobDeploymentStatus"}) = "New";
  EXPECT_FALSE(integration.active(job));
  job.ensure({"status", "jobDeploymentStatus"}) = "Suspended";
  EXPECT_FALSE(integration.active(job));
  job.ensure({"status", "jobDeploymentStatus"}) = "Running";
  EXPECT_TRUE(integration.active(job));
  EXPECT_FALSE(integration.finished(job).has_value());
  EXPECT_FALSE(integration.pods_ready(job));
  job.ensure({"status", "rayClusterStatus", "state"}) = "ready";
  EXPECT_TRUE(integration.pods_ready(job));
  job.ensure({"status", "jobStatus"}) = "SUCCEEDED";
  EXPECT_FALSE(integration.finished(job).has_value()) << "finished is read from the deployment status";
  job.ensure({"status", "jobDeploymentStatus"}) = "Complete";
  job.ensure({"status", "message"}) = "done";
  auto done = integration.finished(job);
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(done->succeeded);
  EXPECT_EQ(done->message, "done");
  job.ensure({"status", "jobStatus"}) = "FAILED";
  job.ensure({"status", "jobDeploymentStatus"}) = "Failed";
  ASSERT_TRUE(integration.finished(job).has_value());
  EXPECT_FALSE(integration.finished(job)->succeeded);
}

TEST_F(RayJobTest, PriorityComesFromTheLabelElseTheFirstTemplateNamingAClass) {
  client::Object job = stored();
  job.ensure({"spec", "rayClusterSpec", "workerGroupSpecs"}).as_array()[0].as_object()["template"].as_object()["spec"]
      .as_object()["priorityClassName"] = "missing";
  auto prio = integration.priority(job, BuildOptions{});
  ASSERT_FALSE(prio.has_value());
  EXPECT_NE(prio.error().message.find("spec.rayClusterSpec.workerGroupSpecs[0].template.spec.priorityClassName"),
            std::string::npos)
      << prio.error().message;
}

}  // namespace
}  // namespace kueuepp::kube::jobs
