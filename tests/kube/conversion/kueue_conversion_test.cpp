#include "kube/conversion/kueue_conversion.hpp"

#include <gtest/gtest.h>

#include "kube/json/yaml.hpp"
#include "tests/kube/conversion/conversion_test_support.hpp"

namespace kueuepp::kube::conversion {
namespace {

using testing::has_stash;
using testing::load_case;
using testing::without_stash;

json::value yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value());
  return v ? *v : json::value{};
}

json::value convert(const json::value& object, std::string_view to) {
  auto converted = convert_kueue_object(object, to);
  EXPECT_TRUE(converted.has_value()) << (converted ? "" : converted.error().message);
  return converted ? *converted : json::value{};
}

class KueueCase : public ::testing::TestWithParam<const char*> {};

// Kueue's mapping: the v1beta1 manifest becomes the v1beta2 one (the stash aside).
TEST_P(KueueCase, V1beta1ConvertsAsKueueDoes) {
  const auto [v1beta1, v1beta2] = load_case(GetParam());
  const auto converted = without_stash(convert(v1beta1, kKueueV1beta2));
  EXPECT_TRUE(json::equal(converted, v1beta2)) << json::dump(converted) << "\nwant\n" << json::dump(v1beta2);
}

TEST_P(KueueCase, RoundTripFromV1beta1IsExact) {
  const auto [v1beta1, v1beta2] = load_case(GetParam());
  const auto there = convert(v1beta1, kKueueV1beta2);
  const auto back = convert(there, kKueueV1beta1);
  EXPECT_TRUE(json::equal(back, v1beta1)) << json::dump(back) << "\nwant\n" << json::dump(v1beta1);
}

TEST_P(KueueCase, RoundTripFromV1beta2IsExact) {
  const auto [v1beta1, v1beta2] = load_case(GetParam());
  const auto there = convert(v1beta2, kKueueV1beta1);
  const auto back = convert(there, kKueueV1beta2);
  EXPECT_TRUE(json::equal(back, v1beta2)) << json::dump(back) << "\nwant\n" << json::dump(v1beta2);
}

INSTANTIATE_TEST_SUITE_P(Cases, KueueCase,
                         ::testing::Values("admissioncheck.yaml", "clusterqueue.yaml", "cohort.yaml", "localqueue.yaml",
                                           "resourceflavor.yaml", "workload.yaml", "workload-pod-priority.yaml",
                                           "workloadpriorityclass.yaml"));

TEST(KueueConversion, LosslessObjectsCarryNoStash) {
  const auto [v1beta1, v1beta2] = load_case("resourceflavor.yaml");
  EXPECT_FALSE(has_stash(convert(v1beta1, kKueueV1beta2)));
  const auto [wl1, wl2] = load_case("workload-pod-priority.yaml");
  EXPECT_FALSE(has_stash(convert(wl1, kKueueV1beta2)));
  EXPECT_FALSE(has_stash(convert(wl2, kKueueV1beta1)));
}

TEST(KueueConversion, V1beta2OnlyFieldsAreDroppedAndStashed) {
  const auto cq = yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohortName: all
  concurrentAdmissionPolicy: {mode: Enabled}
)");
  const auto v1beta1 = convert(cq, kKueueV1beta1);
  EXPECT_EQ(json::get_string(*json::find(v1beta1, "spec"), "cohort"), "all");
  EXPECT_EQ(json::find_path(v1beta1, {"spec", "concurrentAdmissionPolicy"}), nullptr);
  EXPECT_EQ(json::find_path(v1beta1, {"spec", "cohortName"}), nullptr);
  EXPECT_TRUE(has_stash(v1beta1));
  EXPECT_TRUE(json::equal(convert(v1beta1, kKueueV1beta2), cq));
}

TEST(KueueConversion, UnknownPriorityClassRefIsDroppedInV1beta1) {
  const auto wl = yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  priorityClassRef: {group: example.com, kind: Other, name: x}
  preemptionGates: [{name: g}]
status:
  preemptionGates: [{name: g, position: 1}]
)");
  const auto v1beta1 = convert(wl, kKueueV1beta1);
  EXPECT_TRUE(json::equal(*json::find(without_stash(v1beta1), "spec"), json::value(json::object{})));
  EXPECT_TRUE(json::equal(*json::find(v1beta1, "status"), json::value(json::object{})));
  EXPECT_TRUE(json::equal(convert(v1beta1, kKueueV1beta2), wl));
}

TEST(KueueConversion, UnknownFieldsPassThrough) {
  const auto lq = yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: ns}
spec: {clusterQueue: cq, futureField: {a: 1}}
extra: [1, 2]
)");
  const auto v1beta2 = convert(lq, kKueueV1beta2);
  EXPECT_TRUE(json::equal(*json::find_path(v1beta2, {"spec", "futureField"}), *json::find_path(lq, {"spec", "futureField"})));
  EXPECT_TRUE(json::equal(*json::find(v1beta2, "extra"), *json::find(lq, "extra")));
  EXPECT_FALSE(has_stash(v1beta2));
}

TEST(KueueConversion, SameVersionIsUnchanged) {
  const auto [v1beta1, v1beta2] = load_case("clusterqueue.yaml");
  EXPECT_TRUE(json::equal(convert(v1beta1, kKueueV1beta1), v1beta1));
  EXPECT_TRUE(json::equal(convert(v1beta2, kKueueV1beta2), v1beta2));
}

// An edit made in v1beta2 to a field the stash holds wins: the deprecated name comes back
// only while the v1beta2 value is the one it was converted to.
TEST(KueueConversion, EditInTheOtherVersionWinsOverTheStash) {
  const auto [v1beta1, unused] = load_case("clusterqueue.yaml");
  auto stored = convert(v1beta1, kKueueV1beta2);
  stored.as_object()["spec"].as_object()["flavorFungibility"].as_object()["whenCanBorrow"] = "TryNextFlavor";
  const auto read = convert(stored, kKueueV1beta1);
  EXPECT_EQ(json::get_string(*json::find_path(read, {"spec", "flavorFungibility"}), "whenCanBorrow"), "TryNextFlavor");
  // The spec is restored all or none: the admissionChecks list is not put back beside an
  // edited spec, so v1beta1 never holds both forms.
  EXPECT_EQ(json::find_path(read, {"spec", "admissionChecks"}), nullptr);
  EXPECT_NE(json::find_path(read, {"spec", "admissionChecksStrategy"}), nullptr);
  // The status, not edited, still comes back whole.
  EXPECT_TRUE(json::equal(*json::find(read, "status"), *json::find(v1beta1, "status")));
}

// Found by fuzz/conversion_review_fuzzer: an object without metadata whose conversion
// needs a stash got a metadata map made for it, which came back from the round trip.
TEST(KueueConversion, RoundTripOfAnObjectWithoutMetadataIsExact) {
  const auto lq = yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
spec: {clusterQueue: cq}
status: {flavorUsage: [{name: f, resources: [{name: cpu, total: "3"}]}], flavors: [{name: f, resources: [cpu]}]}
)");
  const auto there = convert(lq, kKueueV1beta2);
  ASSERT_TRUE(has_stash(there));
  const auto back = convert(there, kKueueV1beta1);
  EXPECT_TRUE(json::equal(back, lq)) << json::dump(back) << "\nwant\n" << json::dump(lq);
}

TEST(KueueConversion, MalformedInputNamesTheObjectAndTheField) {
  struct Case {
    const char* yaml;
    const char* to;
    const char* message;
  };
  const Case cases[] = {
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {cohort: 3}\n", "kueue.x-k8s.io/v1beta2",
       "ClusterQueue \"cq\": spec.cohort is 3, want a string"},
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {admissionChecks: x}\n", "kueue.x-k8s.io/v1beta2",
       "ClusterQueue \"cq\": spec.admissionChecks is \"x\", want a list of names"},
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w, namespace: ns}\nspec: []\n", "kueue.x-k8s.io/v1beta2",
       "Workload \"ns/w\": spec is [], want an object"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: ns}\nstatus:\n  admission:\n    podSetAssignments:\n    - topologyAssignment: {levels: [a], slices: [{domainCount: 2, valuesPerLevel: [{individual: {roots: [x]}}], podCounts: {universal: 1}}]}\n",
       "kueue.x-k8s.io/v1beta1",
       "Workload \"ns/w\": status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].individual.roots has 1 values, fewer than domainCount"},
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: Job\nmetadata: {name: j}\n", "kueue.x-k8s.io/v1beta2",
       "Job \"j\": kind \"Job\" is not a Kueue kind kueuepp converts"},
      {"apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\nmetadata: {name: c}\n", "kueue.x-k8s.io/v1beta2",
       "Cohort \"c\": apiVersion \"kueue.x-k8s.io/v1alpha1\" is not converted here"},
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: c}\n", "kueue.x-k8s.io/v2",
       "Cohort \"c\": desiredAPIVersion \"kueue.x-k8s.io/v2\" is not converted here"},
      {"[1, 2]", "kueue.x-k8s.io/v1beta2", "the object to convert is [1,2], not a JSON object"},
      // The stash would have to replace them (kube-apiserver never sends either).
      {"apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: c, annotations: [a]}\n", "kueue.x-k8s.io/v1beta2",
       "Cohort \"c\": metadata.annotations is not an object"},
  };
  for (const auto& c : cases) {
    auto result = convert_kueue_object(yaml(c.yaml), c.to);
    ASSERT_FALSE(result.has_value()) << c.yaml;
    EXPECT_NE(result.error().message.find(c.message), std::string::npos) << result.error().message;
  }
}

}  // namespace
}  // namespace kueuepp::kube::conversion
