#pragma once

// ClusterRole aggregation (kube-controller-manager's clusterrole-aggregation controller,
// in-process): a ClusterRole with an aggregationRule holds the union of the rules of
// every other ClusterRole its clusterRoleSelectors match, kept current as roles come,
// change and go. That is how admin, edit and view grow with the roles add-ons label
// rbac.authorization.k8s.io/aggregate-to-* (Kueue's viewer roles among them).

#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

/// The rules `aggregated` should hold given every ClusterRole in `roles` (sorted by
/// name): for each selector in order, the rules of each matching role but itself, each
/// rule once, in order of first appearance, as Kubernetes' controller computes them.
json::array aggregated_rules(const json::value& aggregated, const std::vector<const json::value*>& roles);

class ClusterRoleAggregationController {
 public:
  explicit ClusterRoleAggregationController(ServerContext& ctx);

  void observe(const Change& change);
  /// Brings every aggregated role up to date (at start: roles may have changed while the
  /// server was down, or the data directory predates aggregation).
  void sweep();

 private:
  void schedule();
  void sync();

  ServerContext& ctx_;
  BucketId cluster_roles_;
  bool scheduled_ = false;
};

}  // namespace kueuepp::kube::server
