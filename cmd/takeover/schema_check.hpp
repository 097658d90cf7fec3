#pragma once

// Whether the objects Kueue left would be valid under kueuepp's CRDs: the storage
// migration rewrites every object through them, and an object their schema (CEL rules
// included) refuses would stop it halfway. Checked before anything changes, with the
// same schema code the embedded API server validates with.

#include <map>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/schema/schema.hpp"
#include "kube/json/json.hpp"
#include "kube/takeover/kueue_kinds.hpp"
#include "kube/takeover/takeover_checks.hpp"

namespace kueuepp::cmd::takeover {

class SchemaCheck {
 public:
  /// The v1beta2 schemas of kueuepp's CRDs (name -> manifest, as read_crd_manifests
  /// gives them), compiled once; an error names the CRD whose schema does not compile.
  static Expected<SchemaCheck> compile(const std::map<std::string, json::value>& crds);

  /// `object` as read (kueue.x-k8s.io/v1beta1 or v1beta2), converted to v1beta2, pruned
  /// and defaulted as the API server would, then validated: one refusal listing the
  /// fields that fail, or none. An object that does not convert is left to
  /// check_object, which refuses it with the conversion's words.
  std::vector<kube::takeover::Refusal> check(const kube::takeover::KueueKind& kind, const json::value& object) const;

 private:
  std::map<std::string, kube::schema::SchemaPtr> by_crd_;
};

}  // namespace kueuepp::cmd::takeover
