#include "cmd/scenario/scenario_runner.hpp"
#include "tests/support/source_tree.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kueuepp::scenario {
namespace {

using test_support::read_file;

namespace fs = std::filesystem;

std::vector<fs::path> scenario_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Scenarios, OurOwnScenariosPass) {
  auto files = scenario_files(fs::path(KUEUEPP_SOURCE_DIR) / "tests" / "scenarios");
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    Result r = run_scenario(f.string(), read_file(f));
    EXPECT_TRUE(r.passed) << f << ": " << r.failure;
  }
}

TEST(Scenarios, SharedKueueScenariosPass) {
  fs::path dir = fs::path(KUEUEPP_SOURCE_DIR) / ".." / "shared" / "scenarios";
  auto files = scenario_files(dir);
  if (files.empty()) GTEST_SKIP() << "no shared scenarios beside the checkout";
  for (const auto& f : files) {
    Result r = run_scenario(f.string(), read_file(f));
    EXPECT_TRUE(r.passed) << f << ": " << r.failure;
  }
}

constexpr const char* kBase = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 2}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]}}
---
)";

TEST(Scenarios, AWrongExpectationFailsWithThePreciseDifference) {
  std::string text = std::string(kBase) + R"(apiVersion: scenarios.kueuepp.dev/v1
kind: Expect
admitted: {}
pending: [ns/j]
)";
  Result r = run_scenario("wrong", text);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.failure.find("ns/j: expected pending, got admitted in cq"), std::string::npos) << r.failure;
}

TEST(Scenarios, AWrongFlavorIsReported) {
  std::string text = std::string(kBase) + R"(apiVersion: scenarios.kueuepp.dev/v1
kind: Expect
admitted:
  ns/j: {clusterQueue: cq, podSets: {main: {cpu: spot}}}
pending: []
)";
  Result r = run_scenario("flavor", text);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.failure.find("expected flavors {cpu=spot}"), std::string::npos) << r.failure;
}

TEST(Scenarios, BadInputNamesTheDocumentAndField) {
  Result unknown = run_scenario("unknown", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
  EXPECT_FALSE(unknown.passed);
  EXPECT_NE(unknown.failure.find("document 1 (Pod): unsupported kind v1/Pod"), std::string::npos) << unknown.failure;

  Result bad_quantity = run_scenario("q", R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: lots}]
)");
  EXPECT_FALSE(bad_quantity.passed);
  EXPECT_NE(bad_quantity.failure.find("spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"), std::string::npos)
      << bad_quantity.failure;

  Result broken_yaml = run_scenario("yaml", "kind: [unclosed\n");
  EXPECT_FALSE(broken_yaml.passed);
  EXPECT_NE(broken_yaml.failure.find("line"), std::string::npos) << broken_yaml.failure;

  Result no_expect = run_scenario("none", kBase);
  EXPECT_FALSE(no_expect.passed);
  EXPECT_NE(no_expect.failure.find("no Expect"), std::string::npos);

  Result finish_pending = run_scenario("finish", std::string(kBase) + R"(apiVersion: scenarios.kueuepp.dev/v1
kind: Finish
workloads: [ns/missing]
)");
  EXPECT_FALSE(finish_pending.passed);
  EXPECT_NE(finish_pending.failure.find("ns/missing does not exist"), std::string::npos) << finish_pending.failure;
}

TEST(Scenarios, UnknownConfigurationFieldsAreRejected) {
  Result r = run_scenario("cfg", "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing2: {}\n");
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.failure.find("fairSharing2: unknown field"), std::string::npos) << r.failure;
}

}  // namespace
}  // namespace kueuepp::scenario
