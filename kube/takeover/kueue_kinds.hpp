#pragma once

// The kinds Kueue defines (kueue.x-k8s.io), which of them kueuepp serves, and what a CRD
// says about its versions: what the takeover reads before it changes anything.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::takeover {

struct KueueKind {
  std::string_view kind;      ///< "ClusterQueue"
  std::string_view plural;    ///< "clusterqueues"
  bool namespaced = false;
  /// Empty when kueuepp serves the kind; else the Kueue feature kueuepp does not
  /// implement, for which objects of this kind exist.
  std::string_view unsupported_feature;

  /// "clusterqueues.kueue.x-k8s.io".
  std::string crd_name() const;
  bool served_by_kueuepp() const { return unsupported_feature.empty(); }
};

/// Every kind of Kueue's CRDs (v0.14 and later), kueuepp's first, in the order the
/// takeover migrates them (the queues' structure before the Workloads).
std::span<const KueueKind> kueue_kinds();

/// What a CustomResourceDefinition says about its versions.
struct CrdVersions {
  std::vector<std::string> served;           ///< spec.versions[] with served: true
  std::string storage;                       ///< the spec.versions[] with storage: true
  std::vector<std::string> stored_versions;  ///< status.storedVersions
  std::string conversion_strategy;           ///< spec.conversion.strategy, "None" when absent
  bool serves(std::string_view version) const;
};

CrdVersions crd_versions(const json::value& crd);

}  // namespace kueuepp::kube::takeover
