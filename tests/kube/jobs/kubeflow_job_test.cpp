#include "kube/jobs/kubeflow_job.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "fixtures.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kubeflow_samples.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

/// One Kueue example and what Kueue makes of it.
struct Sample {
  std::string_view framework;
  std::string_view yaml;
  std::vector<std::string> pod_sets;  ///< names, in Kueue's order
  std::vector<std::int64_t> counts;
  std::string workload_name;  ///< GetWorkloadNameForOwnerWithGVK with uid "uid-<lower kind>"
};

// Hashes: sha1("<Kind>\nkubeflow.org\n<name>\nuid-<lower kind>")[:5], computed apart.
const std::vector<Sample>& samples() {
  static const std::vector<Sample> kSamples{
      {"kubeflow.org/pytorchjob", testing::kPyTorchJobSample, {"master", "worker"}, {1, 1},
       "pytorchjob-pytorch-simple-e5e59"},
      {"kubeflow.org/tfjob", testing::kTFJobSample, {"ps", "worker"}, {1, 2}, "tfjob-tensorflow-dist-mnist-7058a"},
      {"kubeflow.org/xgboostjob", testing::kXGBoostJobSample, {"master", "worker"}, {1, 2},
       "xgboostjob-xgboost-dist-iris-test-train-895f9"},
      {"kubeflow.org/paddlejob", testing::kPaddleJobSample, {"worker"}, {2}, "paddlejob-paddle-simple-cpu-13f20"},
      {"kubeflow.org/jaxjob", testing::kJAXJobSample, {"worker"}, {2}, "jaxjob-jax-simple-3be58"},
      {"kubeflow.org/mpijob", testing::kMPIJobSample, {"launcher", "worker"}, {1, 2}, "mpijob-pi-d8627"},
  };
  return kSamples;
}

constexpr std::string_view kOnDemand = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec:
  nodeLabels: {instance-type: on-demand}
)";

constexpr std::string_view kSpot = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
spec:
  nodeLabels: {instance-type: spot}
  tolerations:
  - {key: spot, operator: Exists, effect: NoSchedule}
)";

class KubeflowJobTest : public ::testing::TestWithParam<Sample> {
 protected:
  const KubeflowKind& kind = *find_kubeflow_kind(GetParam().framework);
  const JobIntegration& integration = *find_integration(GetParam().framework);
  client::Object job = stored(GetParam().yaml);
  client::Object on_demand = object(kOnDemand);
  client::Object spot = object(kSpot);
  FlavorLookup lookup = [this](std::string_view name) -> const client::Object* {
    if (name == "on-demand") return &on_demand;
    if (name == "spot") return &spot;
    return nullptr;
  };

  /// The sample as the API server stores it after Kueue's webhook: a namespace, a uid
  /// and runPolicy.suspend.
  client::Object stored(std::string_view text) {
    client::Object o = object(text);
    std::string uid = "uid-";
    for (char c : o.kind()) uid.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    o.ensure({"metadata", "namespace"}) = "default";
    o.ensure({"metadata", "uid"}) = uid;
    o.ensure({"spec", "runPolicy", "suspend"}) = true;
    return o;
  }

  /// The Workload admitted with its first pod set on on-demand and the others on spot.
  client::Object admitted_workload() {
    auto wl = integration.build_workload(job, BuildOptions{});
    EXPECT_TRUE(wl.has_value()) << wl.error().message;
    client::Object out = *wl;
    json::array assignments;
    bool first = true;
    for (const json::value& ps : out.find({"spec", "podSets"})->get_array()) {
      const char* flavor = first ? "on-demand" : "spot";
      first = false;
      json::object a;
      a["name"] = json::get_string(ps, "name");
      a["flavors"] = json::object{{"cpu", flavor}, {"memory", flavor}};
      a["count"] = ps.at("count");
      assignments.push_back(std::move(a));
    }
    out.ensure({"status", "admission", "clusterQueue"}) = "cluster-queue";
    out.ensure({"status", "admission", "podSetAssignments"}) = std::move(assignments);
    out.ensure({"status", "conditions"}) = yaml(R"(
- {type: QuotaReserved, status: "True", reason: QuotaReserved, message: reserved, lastTransitionTime: "2026-01-01T00:00:00Z"}
- {type: Admitted, status: "True", reason: Admitted, message: admitted, lastTransitionTime: "2026-01-01T00:00:00Z"}
)");
    return out;
  }

  /// The pod template of the i-th pod set's replica type.
  const json::value& replica_template(const client::Object& o, const std::string& pod_set) {
    for (const auto& entry : o.find({"spec", kind.replica_specs_field})->get_object()) {
      std::string lower(entry.key());
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == pod_set) return entry.value().at("template");
    }
    ADD_FAILURE() << "no replica type for pod set " << pod_set;
    static const json::value kNull;
    return kNull;
  }
};

TEST_P(KubeflowJobTest, IsFoundByKueuesFrameworkName) {
  EXPECT_EQ(integration.framework(), GetParam().framework);
  EXPECT_EQ(integration.resource().kind, job.kind());
  EXPECT_EQ(integration.resource().api_version(), job.api_version());
}

TEST_P(KubeflowJobTest, OnePodSetPerReplicaTypeNamedAndOrderedAsKueueDoes) {
  auto sets = kubeflow_pod_sets(kind, job);
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  ASSERT_EQ(sets->size(), GetParam().pod_sets.size());
  for (std::size_t i = 0; i < sets->size(); ++i) {
    const json::value& ps = (*sets)[i];
    EXPECT_EQ(json::get_string(ps, "name"), GetParam().pod_sets[i]);
    EXPECT_EQ(ps.at("count"), GetParam().counts[i]);
    EXPECT_EQ(json::find(ps, "minCount"), nullptr) << "Kueue has no partial admission for " << job.kind();
    EXPECT_EQ(*json::find_path(ps, {"template", "spec", "containers"}),
              *json::find_path(replica_template(job, GetParam().pod_sets[i]), {"spec", "containers"}));
    EXPECT_EQ(*json::find(ps, "topologyRequest"), yaml("{podIndexLabel: training.kubeflow.org/replica-index}"));
  }
}

TEST_P(KubeflowJobTest, WorkloadHasKueuesNameOwnerAndQueue) {
  auto wl = integration.build_workload(job, BuildOptions{});
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->name(), GetParam().workload_name);
  auto owner = wl->controller_reference();
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->api_version, job.api_version());
  EXPECT_EQ(owner->kind, job.kind());
  EXPECT_EQ(wl->string_at({"spec", "queueName"}), "user-queue");
  EXPECT_TRUE(integration.equivalent(job, *wl, lookup));
}

TEST_P(KubeflowJobTest, PriorityFromTheWorkloadPriorityClassLabel) {
  job.set_label("kueue.x-k8s.io/priority-class", "high");
  BuildOptions o;
  o.workload_priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    return name == "high" ? std::optional<std::int32_t>(1000) : std::nullopt;
  };
  auto wl = integration.build_workload(job, o);
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->int_at({"spec", "priority"}), 1000);
  EXPECT_EQ(wl->string_at({"spec", "priorityClassRef", "name"}), "high");
}

TEST_P(KubeflowJobTest, StartInjectsEveryReplicaAndStopRestoresThemInOneWrite) {
  client::Object wl = admitted_workload();
  auto r = integration.start(job, wl, lookup);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->changed);
  EXPECT_EQ(r->job.bool_at({"spec", "runPolicy", "suspend"}), false);
  const auto& names = GetParam().pod_sets;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const json::value& tmpl = replica_template(r->job, names[i]);
    EXPECT_EQ(*json::find_path(tmpl, {"spec", "nodeSelector"}),
              yaml(i == 0 ? "{instance-type: on-demand}" : "{instance-type: spot}"))
        << names[i];
    EXPECT_EQ(json::get_string(*json::find_path(tmpl, {"metadata", "labels"}), "kueue.x-k8s.io/podset"), names[i]);
  }
  auto applied = patch::merge_patch(job.json(), r->patch);
  ASSERT_TRUE(applied.has_value());
  EXPECT_EQ(*applied, r->job.json());
  EXPECT_TRUE(integration.equivalent(r->job, wl, lookup));
  EXPECT_FALSE(integration.start(r->job, wl, lookup)->changed);

  auto step = integration.stop(r->job, &wl);
  ASSERT_TRUE(step.has_value());
  EXPECT_TRUE(step->last);
  auto stopped = patch::merge_patch(r->job.json(), step->patch);
  ASSERT_TRUE(stopped.has_value());
  // Round trip: as before the start, but for the empty metadata a merge patch that
  // removes every label leaves (as on the server).
  for (auto& entry : stopped->as_object()["spec"].as_object()[kind.replica_specs_field].as_object()) {
    json::object& tmpl = entry.value().as_object()["template"].as_object();
    const json::value& before = *job.find({"spec", kind.replica_specs_field, entry.key(), "template"});
    if (json::find(before, "metadata") == nullptr) {
      EXPECT_EQ(tmpl["metadata"], json::value(json::object{}));
      tmpl.erase("metadata");
    }
  }
  EXPECT_EQ(*stopped, job.json());
  EXPECT_FALSE(integration.stop(client::Object(*stopped), &wl).has_value());
}

TEST_P(KubeflowJobTest, StartRefusesAnAdmissionOfOtherPodSets) {
  client::Object wl = admitted_workload();
  wl.ensure({"status", "admission", "podSetAssignments"}).as_array().push_back(
      yaml("{name: extra, flavors: {cpu: spot}, count: 1}"));
  auto r = integration.start(job, wl, lookup);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().permanent);
  EXPECT_NE(r.error().message.find("invalid podset infos: expecting"), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(KueueExamples, KubeflowJobTest, ::testing::ValuesIn(samples()),
                         [](const ::testing::TestParamInfo<Sample>& param) {
                           std::string_view framework = param.param.framework;
                           return std::string(framework.substr(framework.find('/') + 1));
                         });

client::Object pytorch() {
  client::Object o = object(testing::kPyTorchJobSample);
  o.ensure({"metadata", "uid"}) = "uid-pytorchjob";
  return o;
}

TEST(KubeflowJob, TFJobReplicaTypesInKueuesOrderWhateverTheMapsOrder) {
  client::Object tf = object(R"(
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  tfReplicaSpecs:
    Evaluator: {template: {spec: {containers: [{name: c}]}}}
    Worker: {replicas: 4, template: {spec: {containers: [{name: c}]}}}
    PS: {replicas: 2, template: {spec: {containers: [{name: c}]}}}
    Chief: {replicas: 1, template: {spec: {containers: [{name: c}]}}}
    Unknown: {replicas: 9, template: {spec: {containers: [{name: c}]}}}
)");
  auto sets = kubeflow_pod_sets(*find_kubeflow_kind("kubeflow.org/tfjob"), tf);
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  std::vector<std::string> names;
  for (const json::value& ps : *sets) names.emplace_back(json::get_string(ps, "name"));
  EXPECT_EQ(names, (std::vector<std::string>{"chief", "ps", "worker", "evaluator"}));
  EXPECT_EQ((*sets)[3].at("count"), 1);  // replicas defaults to 1
}

TEST(KubeflowJob, NoReplicaTypeKueueKnowsIsAClearError) {
  client::Object job = pytorch();
  job.erase({"spec", "pytorchReplicaSpecs"});
  auto wl = pytorchjob_integration().build_workload(job, BuildOptions{});
  ASSERT_FALSE(wl.has_value());
  EXPECT_NE(wl.error().message.find("PyTorchJob default/pytorch-simple has no spec.pytorchReplicaSpecs entry of a "
                                    "replica type Kueue knows (Master, Worker)"),
            std::string::npos)
      << wl.error().message;
}

TEST(KubeflowJob, FinishedFromSucceededOrFailedAndReadyWhileRunning) {
  const JobIntegration& k = pytorchjob_integration();
  client::Object job = pytorch();
  EXPECT_FALSE(k.finished(job).has_value());
  EXPECT_FALSE(k.pods_ready(job));
  job.ensure({"status", "conditions"}) =
      yaml("[{type: Created, status: 'True'}, {type: Running, status: 'True'}, {type: Succeeded, status: 'False'}]");
  EXPECT_FALSE(k.finished(job).has_value());
  EXPECT_TRUE(k.pods_ready(job));
  job.ensure({"status", "conditions"}) =
      yaml("[{type: Running, status: 'False'}, {type: Failed, status: 'True', message: 'PyTorchJob failed'}]");
  ASSERT_TRUE(k.finished(job).has_value());
  EXPECT_FALSE(k.finished(job)->succeeded);
  EXPECT_EQ(k.finished(job)->message, "PyTorchJob failed");
  EXPECT_FALSE(k.pods_ready(job));
  job.ensure({"status", "conditions"}) = yaml("[{type: Succeeded, status: 'True', message: done}]");
  EXPECT_TRUE(k.finished(job)->succeeded);
}

TEST(KubeflowJob, ActiveWhileAReplicaHasActivePods) {
  const JobIntegration& k = pytorchjob_integration();
  client::Object job = pytorch();
  EXPECT_FALSE(k.active(job));
  job.ensure({"status", "replicaStatuses"}) = yaml("{Master: {active: 0, succeeded: 1}, Worker: {active: 1}}");
  EXPECT_TRUE(k.active(job));
  job.ensure({"status", "replicaStatuses"}) = yaml("{Master: {succeeded: 1}, Worker: {succeeded: 1}}");
  EXPECT_FALSE(k.active(job));
  EXPECT_FALSE(k.suspended(job));
  job.ensure({"spec", "runPolicy", "suspend"}) = true;
  EXPECT_TRUE(k.suspended(job));
}

TEST(KubeflowJob, PriorityFromTheLabelThenTheSchedulingPolicyThenTheReplicas) {
  const JobIntegration& k = pytorchjob_integration();
  client::Object job = pytorch();
  BuildOptions o;
  o.workload_priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    return name == "high" ? std::optional<std::int32_t>(1000) : std::nullopt;
  };
  o.priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    if (name == "policy") return 10;
    if (name == "worker") return 20;
    return std::nullopt;
  };
  job.ensure({"spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "priorityClassName"}) = "worker";
  EXPECT_EQ(k.priority(job, o)->value, 20);
  job.ensure({"spec", "runPolicy", "schedulingPolicy", "priorityClass"}) = "policy";
  EXPECT_EQ(k.priority(job, o)->value, 10);
  job.set_label("kueue.x-k8s.io/priority-class", "high");
  auto wl = k.build_workload(job, o);
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->int_at({"spec", "priority"}), 1000);
  EXPECT_EQ(wl->string_at({"spec", "priorityClassRef", "name"}), "high");
}

TEST(KubeflowJob, ValidationNamesTheKindAndTheLabel) {
  client::Object job = pytorch();
  job.set_label("kueue.x-k8s.io/max-exec-time-seconds", "0");
  auto r = validate_kubeflow_job(*find_kubeflow_kind("kubeflow.org/pytorchjob"), job);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("PyTorchJob default/pytorch-simple: label kueue.x-k8s.io/max-exec-time-seconds"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace kueuepp::kube::jobs
