#pragma once

// kube-apiserver's default user-facing ClusterRoles: cluster-admin (bound to
// system:masters), and admin, edit and view, which hold no rules of their own but
// aggregate those of every ClusterRole labelled rbac.authorization.k8s.io/aggregate-to-
// admin, -edit or -view (Kubernetes' system:aggregate-to-* roles among them, and the
// roles of add-ons such as Kueue's viewer roles), plus system:auth-delegator.
// The rules are Kubernetes' published bootstrap policy.

#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::server {

/// The ClusterRoles, in creation order, each a complete object without apiVersion/kind.
const std::vector<json::value>& default_cluster_roles();

}  // namespace kueuepp::kube::server
