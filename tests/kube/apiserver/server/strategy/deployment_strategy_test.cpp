// apps/v1 Deployment: kube-apiserver's defaults, validation, the immutable selector,
// generation, the status subresource, dry run, strategic merge patch and server-side
// apply, over HTTP.

#include <fmt/format.h>

#include "tests/kube/apiserver/server/strategy/builtin_kind_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

constexpr std::string_view kDeployments = "/apis/apps/v1/namespaces/team/deployments";
constexpr std::string_view kWeb = "/apis/apps/v1/namespaces/team/deployments/web";

/// A Deployment of `labels` selected by `selector` (YAML flow maps), with extra spec lines.
std::string deployment(std::string_view selector = "{app: web}", std::string_view labels = "{app: web}",
                       std::string_view extra_spec = "", std::string_view pod_extra = "") {
  return fmt::format(R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {{tier: front}}
spec:
  selector:
    matchLabels: {}
{}  template:
    metadata:
      labels: {}
    spec:
{}      containers:
      - name: web
        image: nginx:1.25
        env:
        - name: A
          value: "1"
)",
                     selector, extra_spec, labels, pod_extra);
}

class DeploymentStrategy : public BuiltinKindTest {};

TEST_F(DeploymentStrategy, CreateFillsKubeApiserverDefaults) {
  json::value created = create_yaml(kDeployments, deployment());
  EXPECT_EQ(num(created, "/metadata/generation"), 1);
  EXPECT_EQ(num(created, "/spec/replicas"), 1);
  EXPECT_EQ(str(created, "/spec/strategy/type"), "RollingUpdate");
  EXPECT_EQ(str(created, "/spec/strategy/rollingUpdate/maxUnavailable"), "25%");
  EXPECT_EQ(str(created, "/spec/strategy/rollingUpdate/maxSurge"), "25%");
  EXPECT_EQ(num(created, "/spec/revisionHistoryLimit"), 10);
  EXPECT_EQ(num(created, "/spec/progressDeadlineSeconds"), 600);
  // The pod template's defaults, with the restartPolicy a Deployment's pods need.
  EXPECT_EQ(str(created, "/spec/template/spec/restartPolicy"), "Always");
  EXPECT_EQ(num(created, "/spec/template/spec/terminationGracePeriodSeconds"), 30);
  EXPECT_EQ(str(created, "/spec/template/spec/dnsPolicy"), "ClusterFirst");
  EXPECT_EQ(str(created, "/spec/template/spec/schedulerName"), "default-scheduler");
  EXPECT_EQ(json::dump(*at(created, "/spec/template/spec/securityContext")), "{}");
  EXPECT_EQ(str(created, "/spec/template/spec/containers/0/terminationMessagePath"), "/dev/termination-log");
  EXPECT_EQ(str(created, "/spec/template/spec/containers/0/terminationMessagePolicy"), "File");
  EXPECT_EQ(str(created, "/spec/template/spec/containers/0/imagePullPolicy"), "IfNotPresent");
  EXPECT_EQ(json::dump(*at(created, "/status")), "{}");
  json::value stored = get_ok(kWeb);
  EXPECT_EQ(json::dump(*at(stored, "/spec")), json::dump(*at(created, "/spec")));
}

TEST_F(DeploymentStrategy, RecreateGetsNoRollingUpdateAndKeepsWhatWasSet) {
  json::value created =
      create_yaml(kDeployments, deployment("{app: web}", "{app: web}", "  replicas: 3\n  strategy: {type: Recreate}\n  revisionHistoryLimit: 2\n"));
  EXPECT_EQ(num(created, "/spec/replicas"), 3);
  EXPECT_EQ(str(created, "/spec/strategy/type"), "Recreate");
  EXPECT_EQ(at(created, "/spec/strategy/rollingUpdate"), nullptr);
  EXPECT_EQ(num(created, "/spec/revisionHistoryLimit"), 2);
}

TEST_F(DeploymentStrategy, SelectorMustMatchTheTemplateLabels) {
  auto errs = invalid(post_yaml(kDeployments, deployment("{app: other}")));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs[0].find("spec.template.metadata.labels: Invalid value"), std::string::npos) << errs[0];
  EXPECT_NE(errs[0].find("`selector` does not match template `labels`"), std::string::npos) << errs[0];
}

TEST_F(DeploymentStrategy, SelectorIsRequired) {
  std::string yaml = deployment();
  constexpr std::string_view kSelector = "  selector:\n    matchLabels: {app: web}\n";
  yaml.erase(yaml.find(kSelector), kSelector.size());
  auto errs = invalid(post_yaml(kDeployments, yaml));
  EXPECT_EQ(errs.front(), "spec.selector: Required value");
  EXPECT_TRUE(any_contains(errs, "`selector` does not match template `labels`"));
}

TEST_F(DeploymentStrategy, TemplateMustRestartAlways) {
  auto errs = invalid(post_yaml(kDeployments, deployment("{app: web}", "{app: web}", "", "      restartPolicy: OnFailure\n")));
  EXPECT_EQ(errs, std::vector<std::string>{
                      "spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\""});
}

TEST_F(DeploymentStrategy, RollingUpdateBoundsAndCounts) {
  auto zero = invalid(post_yaml(kDeployments, deployment("{app: web}", "{app: web}",
                                                         "  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}\n")));
  EXPECT_EQ(zero, std::vector<std::string>{
                      "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"});
  auto percent = invalid(post_yaml(kDeployments, deployment("{app: web}", "{app: web}",
                                                            "  strategy: {rollingUpdate: {maxUnavailable: 120%, maxSurge: x}}\n")));
  EXPECT_TRUE(any_contains(percent, "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"120%\": must not be greater than 100%"));
  EXPECT_TRUE(any_contains(percent, "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"x\": a valid percent string"));
  auto negative = invalid(post_yaml(kDeployments, deployment("{app: web}", "{app: web}", "  replicas: -1\n  strategy: {type: Blue}\n")));
  EXPECT_TRUE(any_contains(negative, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"));
  EXPECT_TRUE(any_contains(negative, "spec.strategy.type: Unsupported value: \"Blue\""));
}

TEST_F(DeploymentStrategy, SelectorIsImmutable) {
  create_yaml(kDeployments, deployment());
  // Both the selector and the labels change: only the selector's immutability is wrong.
  HttpReply r = api().patch(kWeb, json::object{{"spec", json::object{
                                                            {"selector", json::object{{"matchLabels", json::object{{"app", "v2"}}}}},
                                                            {"template", json::object{{"metadata", json::object{{"labels", json::object{{"app", "v2"}}}}}}}}}});
  auto errs = invalid(r);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].substr(0, 29), "spec.selector: Invalid value:");
  EXPECT_NE(errs[0].find("field is immutable"), std::string::npos);
}

TEST_F(DeploymentStrategy, GenerationFollowsSpecAndAnnotationsNotLabelsOrStatus) {
  json::value v1 = create_yaml(kDeployments, deployment());
  json::value labelled = expect(200, api().patch(kWeb, json::object{{"metadata", json::object{{"labels", json::object{{"x", "y"}}}}}}));
  EXPECT_EQ(num(labelled, "/metadata/generation"), 1);
  json::value scaled = expect(200, api().patch(kWeb, json::object{{"spec", json::object{{"replicas", 4}}}}));
  EXPECT_EQ(num(scaled, "/metadata/generation"), 2);
  // Annotations are copied to the ReplicaSets, so they count as a change of intent.
  json::value annotated = expect(200, api().patch(kWeb, json::object{{"metadata", json::object{{"annotations", json::object{{"a", "b"}}}}}}));
  EXPECT_EQ(num(annotated, "/metadata/generation"), 3);
  // The status subresource changes status only, labels included.
  json::value status = expect(200, api().patch(std::string(kWeb) + "/status",
                                               json::object{{"metadata", json::object{{"labels", json::object{{"x", "z"}}}}},
                                                            {"spec", json::object{{"replicas", 9}}},
                                                            {"status", json::object{{"replicas", 4}, {"readyReplicas", 2}}}}));
  EXPECT_EQ(num(status, "/status/readyReplicas"), 2);
  EXPECT_EQ(num(status, "/spec/replicas"), 4);
  EXPECT_EQ(str(status, "/metadata/labels/x"), "y");
  EXPECT_EQ(num(status, "/metadata/generation"), 3);
  auto errs = invalid(api().patch(std::string(kWeb) + "/status", json::object{{"status", json::object{{"readyReplicas", 7}}}}));
  EXPECT_TRUE(any_contains(errs, "status.readyReplicas: Invalid value: 7: cannot be greater than status.replicas"));
  EXPECT_GT(rv_of(status), rv_of(v1));
}

TEST_F(DeploymentStrategy, DryRunStoresNothing) {
  json::value dry = expect(201, api().request("POST", std::string(kDeployments) + "?dryRun=All", deployment(), "application/yaml"));
  EXPECT_EQ(num(dry, "/spec/replicas"), 1);
  EXPECT_EQ(api().get(kWeb).status, 404);
  create_yaml(kDeployments, deployment());
  json::value dry_patch = expect(200, api().patch(std::string(kWeb) + "?dryRun=All", json::object{{"spec", json::object{{"replicas", 5}}}}));
  EXPECT_EQ(num(dry_patch, "/spec/replicas"), 5);
  EXPECT_EQ(num(get_ok(kWeb), "/spec/replicas"), 1);
}

TEST_F(DeploymentStrategy, StrategicMergePatchMergesContainersByName) {
  create_yaml(kDeployments, deployment());
  json::value patched = expect(200, api().patch(kWeb,
                                                json::object{{"spec", json::object{{"template", json::object{{"spec", json::object{
                                                    {"containers", json::array{json::object{{"name", "web"}, {"env", json::array{json::object{{"name", "B"}, {"value", "2"}}}}}}}}}}}}}},
                                                "application/strategic-merge-patch+json"));
  EXPECT_EQ(str(patched, "/spec/template/spec/containers/0/image"), "nginx:1.25");
  EXPECT_EQ(str(patched, "/spec/template/spec/containers/0/env/0/name"), "B");
  EXPECT_EQ(str(patched, "/spec/template/spec/containers/0/env/1/name"), "A");
}

TEST_F(DeploymentStrategy, ServerSideApplyCreatesAndReappliesAsANoOp) {
  json::value created = expect(201, apply_yaml(kWeb, deployment()));
  EXPECT_EQ(num(created, "/spec/replicas"), 1);
  EXPECT_EQ(str(created, "/metadata/managedFields/0/manager"), "tester");
  json::value again = expect(200, apply_yaml(kWeb, deployment()));
  EXPECT_EQ(rv_of(again), rv_of(created));
  // Another manager changing the image conflicts with the owner.
  std::string changed = deployment();
  changed.replace(changed.find("nginx:1.25"), 10, "nginx:1.26");
  EXPECT_EQ(apply_yaml(kWeb, changed, "other").status, 409);
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
