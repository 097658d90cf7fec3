#pragma once

// The objects a fresh kube-apiserver has: the namespaces default, kube-system,
// kube-public and kube-node-lease, the system-node-critical / system-cluster-critical
// PriorityClasses, and the RBAC bootstrap policy every authenticated user holds
// (ClusterRoles and bindings system:discovery, system:basic-user,
// system:public-info-viewer), and the default ClusterRoles of bootstrap_roles.hpp with
// cluster-admin bound to system:masters. Created when missing.

#include "core/expected.hpp"
#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

Status create_bootstrap_objects(ServerContext& ctx);

}  // namespace kueuepp::kube::server
