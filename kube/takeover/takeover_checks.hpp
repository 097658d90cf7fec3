#pragma once

// What `kueuepp takeover` refuses before it changes anything: a cluster without Kueue's
// CRDs (or with versions it does not know), objects of Kueue kinds kueuepp does not
// serve, queues that ask for what kueuepp does not implement (the controller's own
// decoders and the engine's rules: admissionScope, concurrentAdmissionPolicy, flavors
// with a topologyName), and objects kueuepp's decoders refuse. Each refusal names the
// object, why, and what to do.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/takeover/kueue_kinds.hpp"

namespace kueuepp::kube::takeover {

struct Refusal {
  std::string object;  ///< `ClusterQueue "cq"`, `CRD workloads.kueue.x-k8s.io`
  std::string reason;
  std::string remedy;
  /// `ClusterQueue "cq": sets spec.admissionScope, ...; do: ...`.
  std::string describe() const;
};

/// The Kueue CRDs as found: crd name -> the live CRD, nullopt when not installed.
using InstalledCrds = std::map<std::string, std::optional<json::value>>;

/// Every CRD of a kind kueuepp serves is installed and serves and stores v1beta1 or
/// v1beta2 (Kueue v0.14: v1beta1 only; later: both).
std::vector<Refusal> check_installed_crds(const InstalledCrds& crds);

/// Objects exist of a Kueue kind kueuepp does not serve (`names`: some of them, `count`
/// all of them).
std::optional<Refusal> check_unserved_kind(const KueueKind& kind, std::size_t count,
                                           const std::vector<std::string>& names);

/// One object of a kind kueuepp serves, as read (kueue.x-k8s.io/v1beta1 or v1beta2):
/// refused when Kueue's conversion or kueuepp's decoder refuses it, or when it asks for
/// a feature kueuepp does not implement.
std::vector<Refusal> check_object(const KueueKind& kind, const json::value& object);

}  // namespace kueuepp::kube::takeover
