#include "kube/takeover/kueue_kinds.hpp"

#include <algorithm>
#include <array>

namespace kueuepp::kube::takeover {

namespace {

constexpr std::array<KueueKind, 11> kKinds{{
    {"ResourceFlavor", "resourceflavors", false, ""},
    {"Cohort", "cohorts", false, ""},
    {"ClusterQueue", "clusterqueues", false, ""},
    {"LocalQueue", "localqueues", true, ""},
    {"WorkloadPriorityClass", "workloadpriorityclasses", false, ""},
    {"AdmissionCheck", "admissionchecks", false, ""},
    {"Workload", "workloads", true, ""},
    {"Topology", "topologies", false, "topology-aware scheduling"},
    {"MultiKueueCluster", "multikueueclusters", false, "MultiKueue"},
    {"MultiKueueConfig", "multikueueconfigs", false, "MultiKueue"},
    {"ProvisioningRequestConfig", "provisioningrequestconfigs", false,
     "the ProvisioningRequest admission check"},
}};

}  // namespace

std::string KueueKind::crd_name() const { return std::string(plural) + ".kueue.x-k8s.io"; }

std::span<const KueueKind> kueue_kinds() { return kKinds; }

bool CrdVersions::serves(std::string_view version) const {
  return std::find(served.begin(), served.end(), version) != served.end();
}

CrdVersions crd_versions(const json::value& crd) {
  CrdVersions out;
  out.conversion_strategy = "None";
  const json::value* versions = json::find_path(crd, {"spec", "versions"});
  if (versions != nullptr && versions->is_array()) {
    for (const json::value& v : versions->get_array()) {
      std::string name(json::get_string(v, "name"));
      const json::value* served = json::find(v, "served");
      const json::value* storage = json::find(v, "storage");
      if (served != nullptr && served->is_bool() && served->get_bool()) out.served.push_back(name);
      if (storage != nullptr && storage->is_bool() && storage->get_bool()) out.storage = name;
    }
  }
  const json::value* stored = json::find_path(crd, {"status", "storedVersions"});
  if (stored != nullptr && stored->is_array()) {
    for (const json::value& v : stored->get_array()) {
      if (v.is_string()) out.stored_versions.emplace_back(v.get_string());
    }
  }
  if (const json::value* conversion = json::find_path(crd, {"spec", "conversion"})) {
    std::string_view strategy = json::get_string(*conversion, "strategy");
    if (!strategy.empty()) out.conversion_strategy = std::string(strategy);
  }
  return out;
}

}  // namespace kueuepp::kube::takeover
