// Generated objects of every kind, in both versions, with the fields each version has
// (those the other lacks included) and fields neither knows: every round trip is exact.

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kube/conversion/kueue_conversion.hpp"

namespace kueuepp::kube::conversion {
namespace {

class Generator {
 public:
  explicit Generator(std::uint32_t seed) : rng_(seed) {}

  bool coin() { return std::uniform_int_distribution<int>(0, 1)(rng_) == 1; }
  int number(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string name() {
    static constexpr const char* kParts[] = {"a", "b", "node-", "-1", "rack", "x", "team", ""};
    std::string out;
    for (int i = number(1, 3); i > 0; --i) out += kParts[number(0, 7)];
    return out;
  }
  template <class T>
  T pick(std::initializer_list<T> options) {
    return *(options.begin() + number(0, static_cast<int>(options.size()) - 1));
  }
  json::value scalar() {
    switch (number(0, 3)) {
      case 0: return json::value(json::string(name()));
      case 1: return json::value(number(-5, 5));
      case 2: return json::value(coin());
      default: return json::value(nullptr);
    }
  }
  // A field no version knows, sometimes.
  void maybe_unknown(json::object& o) {
    if (number(0, 3) == 0) o["future" + name()] = scalar();
  }
  void maybe(json::object& o, std::string_view key, json::value v) {
    if (coin()) o[key] = std::move(v);
  }

  json::value object(std::string_view kind, bool v1beta1) {
    json::object o;
    o["apiVersion"] = v1beta1 ? kKueueV1beta1 : kKueueV1beta2;
    o["kind"] = kind;
    json::object metadata{{"name", "obj-" + name()}};
    if (kind == "LocalQueue" || kind == "Workload") metadata["namespace"] = "ns";
    if (number(0, 3) == 0) metadata["annotations"] = json::object{};
    if (number(0, 3) == 0) metadata["annotations"] = json::object{{"k", name()}};
    o["metadata"] = std::move(metadata);
    json::object spec;
    json::object status;
    if (kind == "ClusterQueue") cluster_queue(spec, status, v1beta1);
    if (kind == "LocalQueue") local_queue(spec, status, v1beta1);
    if (kind == "Workload") workload(spec, status, v1beta1);
    if (kind == "Cohort") fair_sharing_status(status, v1beta1);
    if (kind == "AdmissionCheck") {
      spec["controllerName"] = "example.com/" + name();
      if (v1beta1) maybe(spec, "retryDelayMinutes", json::value(number(0, 30)));
    }
    if (kind == "WorkloadPriorityClass") o["value"] = number(0, 1000);
    maybe_unknown(spec);
    maybe_unknown(status);
    maybe_unknown(o);
    if (kind != "WorkloadPriorityClass" && (coin() || !spec.empty())) o["spec"] = std::move(spec);
    if (!status.empty() || coin()) o["status"] = std::move(status);
    return o;
  }

 private:
  void fair_sharing_status(json::object& status, bool v1beta1) {
    if (!coin()) return;
    json::object fair{{"weightedShare", number(0, 100)}};
    if (v1beta1) maybe(fair, "admissionFairSharingStatus", json::object{{"consumedResources", json::object{{"cpu", "1"}}}});
    status["fairSharing"] = std::move(fair);
  }

  void cluster_queue(json::object& spec, json::object& status, bool v1beta1) {
    maybe(spec, v1beta1 ? "cohort" : "cohortName", json::value(json::string(name())));
    json::array checks;
    for (int i = number(0, 2); i > 0; --i) checks.emplace_back(json::string(name()));
    if (v1beta1 && coin()) spec["admissionChecks"] = checks;
    else if (coin()) {
      json::array rules;
      for (const auto& c : checks) rules.emplace_back(json::object{{"name", c}});
      spec["admissionChecksStrategy"] = json::object{{"admissionChecks", std::move(rules)}};
    }
    if (coin()) {
      json::object f;
      maybe(f, "whenCanBorrow", v1beta1 ? pick({"Borrow", "MayStopSearch", "TryNextFlavor"}) : pick({"MayStopSearch", "TryNextFlavor"}));
      maybe(f, "whenCanPreempt", v1beta1 ? pick({"Preempt", "MayStopSearch", "TryNextFlavor"}) : pick({"MayStopSearch", "TryNextFlavor"}));
      spec["flavorFungibility"] = std::move(f);
    }
    if (!v1beta1) maybe(spec, "concurrentAdmissionPolicy", json::object{{"mode", name()}});
    maybe(status, "pendingWorkloads", json::value(number(0, 9)));
    if (v1beta1) maybe(status, "pendingWorkloadsStatus", json::object{{"clusterQueuePendingWorkload", json::array{}}});
    fair_sharing_status(status, v1beta1);
  }

  void local_queue(json::object& spec, json::object& status, bool v1beta1) {
    spec["clusterQueue"] = json::string(name());
    json::array usage;
    for (int i = number(0, 2); i > 0; --i) usage.emplace_back(json::object{{"name", name()}, {"resources", json::array{}}});
    maybe(status, v1beta1 ? "flavorUsage" : "flavorsUsage", usage);
    if (v1beta1) maybe(status, "flavors", json::array{json::object{{"name", name()}}});
  }

  json::object topology(bool v1beta1) {
    json::array levels{"rack", "kubernetes.io/hostname"};
    json::array domains;
    for (int i = number(0, 4); i > 0; --i) {
      domains.emplace_back(json::object{{"values", json::array{json::string(name()), json::string(name())}}, {"count", number(1, 3)}});
    }
    if (v1beta1) return json::object{{"levels", levels}, {"domains", domains}};
    // v1beta2 as several slices of one domain each, an encoding Kueue's encoder would not pick.
    json::array slices;
    for (const auto& d : domains) {
      const auto& values = d.as_object().at("values").as_array();
      slices.emplace_back(json::object{{"domainCount", 1},
                                       {"valuesPerLevel", json::array{json::object{{"universal", values[0]}}, json::object{{"universal", values[1]}}}},
                                       {"podCounts", json::object{{"universal", d.as_object().at("count")}}}});
    }
    json::object out{{"levels", levels}};
    if (!slices.empty() || coin()) out["slices"] = std::move(slices);
    return out;
  }

  void workload(json::object& spec, json::object& status, bool v1beta1) {
    spec["queueName"] = json::string(name());
    if (v1beta1) {
      maybe(spec, "priorityClassSource", json::value(pick({"kueue.x-k8s.io/workloadpriorityclass", "scheduling.k8s.io/priorityclass", ""})));
      maybe(spec, "priorityClassName", json::value(json::string(name())));
    } else if (coin()) {
      spec["priorityClassRef"] = pick<json::value>({json::object{{"group", "kueue.x-k8s.io"}, {"kind", "WorkloadPriorityClass"}, {"name", name()}},
                                                   json::object{{"group", "scheduling.k8s.io"}, {"kind", "PriorityClass"}, {"name", name()}},
                                                   json::object{{"group", "example.com"}, {"kind", "Other"}, {"name", name()}}});
    }
    if (!v1beta1) maybe(spec, "preemptionGates", json::array{json::object{{"name", name()}}});
    json::object pod_set{{"name", "main"}, {"count", number(1, 4)}};
    if (coin()) {
      json::object request{{"required", "rack"}};
      if (!v1beta1) maybe(request, "podsetSliceRequiredTopologyConstraints", json::array{json::object{{"level", "rack"}}});
      pod_set["topologyRequest"] = std::move(request);
    }
    spec["podSets"] = json::array{pod_set};
    maybe(status, v1beta1 ? "accumulatedPastExexcutionTimeSeconds" : "accumulatedPastExecutionTimeSeconds", json::value(number(0, 99)));
    if (!v1beta1) maybe(status, "preemptionGates", json::array{json::object{{"name", name()}}});
    if (coin()) {
      json::object assignment{{"name", "main"}, {"count", 2}};
      if (coin()) assignment["topologyAssignment"] = topology(v1beta1);
      status["admission"] = json::object{{"clusterQueue", name()}, {"podSetAssignments", json::array{assignment}}};
    }
  }

  std::mt19937 rng_;
};

json::value must_convert(const json::value& object, std::string_view to) {
  auto converted = convert_kueue_object(object, to);
  EXPECT_TRUE(converted.has_value()) << (converted ? "" : converted.error().message) << "\n" << json::dump(object);
  return converted ? *converted : json::value{};
}

TEST(ConversionRoundTrip, GeneratedObjectsOfEveryKindComeBackExactly) {
  Generator gen(20261129);
  int checked = 0;
  for (const auto* kind : {"ResourceFlavor", "ClusterQueue", "LocalQueue", "Cohort", "Workload", "WorkloadPriorityClass", "AdmissionCheck"}) {
    for (int i = 0; i < 400; ++i) {
      for (const bool from_v1beta1 : {true, false}) {
        const auto original = gen.object(kind, from_v1beta1);
        const auto there = must_convert(original, from_v1beta1 ? kKueueV1beta2 : kKueueV1beta1);
        const auto back = must_convert(there, from_v1beta1 ? kKueueV1beta1 : kKueueV1beta2);
        ASSERT_TRUE(json::equal(back, original)) << kind << " from " << (from_v1beta1 ? "v1beta1" : "v1beta2") << "\n"
                                                 << json::dump(original) << "\nvia\n" << json::dump(there) << "\nback\n"
                                                 << json::dump(back);
        // And once more: a second round trip neither grows nor loses anything.
        ASSERT_TRUE(json::equal(must_convert(must_convert(back, from_v1beta1 ? kKueueV1beta2 : kKueueV1beta1),
                                             from_v1beta1 ? kKueueV1beta1 : kKueueV1beta2),
                                original));
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 7 * 400 * 2);
}

}  // namespace
}  // namespace kueuepp::kube::conversion
