#include "kube/apiserver/server/bootstrap_roles.hpp"

#include <stdexcept>

#include "kube/json/yaml.hpp"

namespace kueuepp::kube::server {

namespace {

// Kubernetes' bootstrap policy for these roles (plugin/pkg/auth/authorizer/rbac/
// bootstrappolicy), written as data. The labels and annotation every bootstrap role
// carries are added by default_cluster_roles().
constexpr std::string_view kRoles = R"(
- metadata: {name: cluster-admin}
  rules:
  - {apiGroups: ["*"], resources: ["*"], verbs: ["*"]}
  - {nonResourceURLs: ["*"], verbs: ["*"]}
- metadata: {name: admin}
  aggregationRule:
    clusterRoleSelectors: [{matchLabels: {rbac.authorization.k8s.io/aggregate-to-admin: "true"}}]
  rules: []
- metadata: {name: edit, labels: {rbac.authorization.k8s.io/aggregate-to-admin: "true"}}
  aggregationRule:
    clusterRoleSelectors: [{matchLabels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}}]
  rules: []
- metadata: {name: view, labels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}}
  aggregationRule:
    clusterRoleSelectors: [{matchLabels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}}]
  rules: []
- metadata: {name: "system:aggregate-to-admin", labels: {rbac.authorization.k8s.io/aggregate-to-admin: "true"}}
  rules:
  - {apiGroups: [authorization.k8s.io], resources: [localsubjectaccessreviews], verbs: [create]}
  - apiGroups: [rbac.authorization.k8s.io]
    resources: [rolebindings, roles]
    verbs: [create, delete, deletecollection, get, list, patch, update, watch]
- metadata: {name: "system:aggregate-to-edit", labels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}}
  rules:
  - apiGroups: [""]
    resources: [pods/attach, pods/exec, pods/portforward, pods/proxy, secrets, services/proxy]
    verbs: [get, list, watch]
  - {apiGroups: [""], resources: [serviceaccounts], verbs: [impersonate]}
  - apiGroups: [""]
    resources: [pods, pods/attach, pods/exec, pods/portforward, pods/proxy]
    verbs: [create, delete, deletecollection, patch, update]
  - {apiGroups: [""], resources: [pods/eviction], verbs: [create]}
  - apiGroups: [""]
    resources: [configmaps, events, persistentvolumeclaims, replicationcontrollers, replicationcontrollers/scale,
                secrets, serviceaccounts, services, services/proxy]
    verbs: [create, delete, deletecollection, patch, update]
  - {apiGroups: [""], resources: [serviceaccounts/token], verbs: [create]}
  - apiGroups: [apps]
    resources: [daemonsets, deployments, deployments/rollback, deployments/scale, replicasets, replicasets/scale,
                statefulsets, statefulsets/scale]
    verbs: [create, delete, deletecollection, patch, update]
  - {apiGroups: [autoscaling], resources: [horizontalpodautoscalers], verbs: [create, delete, deletecollection, patch, update]}
  - {apiGroups: [batch], resources: [cronjobs, jobs], verbs: [create, delete, deletecollection, patch, update]}
  - apiGroups: [extensions]
    resources: [daemonsets, deployments, deployments/rollback, deployments/scale, ingresses, networkpolicies, replicasets,
                replicasets/scale, replicationcontrollers/scale]
    verbs: [create, delete, deletecollection, patch, update]
  - {apiGroups: [policy], resources: [poddisruptionbudgets], verbs: [create, delete, deletecollection, patch, update]}
  - {apiGroups: [networking.k8s.io], resources: [ingresses, networkpolicies], verbs: [create, delete, deletecollection, patch, update]}
  - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create, delete, deletecollection, get, list, patch, update, watch]}
- metadata: {name: "system:aggregate-to-view", labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}}
  rules:
  - apiGroups: [""]
    resources: [configmaps, endpoints, persistentvolumeclaims, persistentvolumeclaims/status, pods, replicationcontrollers,
                replicationcontrollers/scale, serviceaccounts, services, services/status]
    verbs: [get, list, watch]
  - apiGroups: [""]
    resources: [bindings, events, limitranges, namespaces/status, pods/log, pods/status, replicationcontrollers/status,
                resourcequotas, resourcequotas/status]
    verbs: [get, list, watch]
  - {apiGroups: [""], resources: [namespaces], verbs: [get, list, watch]}
  - {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [get, list, watch]}
  - apiGroups: [apps]
    resources: [controllerrevisions, daemonsets, daemonsets/status, deployments, deployments/scale, deployments/status,
                replicasets, replicasets/scale, replicasets/status, statefulsets, statefulsets/scale, statefulsets/status]
    verbs: [get, list, watch]
  - {apiGroups: [autoscaling], resources: [horizontalpodautoscalers, horizontalpodautoscalers/status], verbs: [get, list, watch]}
  - {apiGroups: [batch], resources: [cronjobs, cronjobs/status, jobs, jobs/status], verbs: [get, list, watch]}
  - apiGroups: [extensions]
    resources: [daemonsets, daemonsets/status, deployments, deployments/scale, deployments/status, ingresses, ingresses/status,
                networkpolicies, replicasets, replicasets/scale, replicasets/status, replicationcontrollers/scale]
    verbs: [get, list, watch]
  - {apiGroups: [policy], resources: [poddisruptionbudgets, poddisruptionbudgets/status], verbs: [get, list, watch]}
  - {apiGroups: [networking.k8s.io], resources: [ingresses, ingresses/status, networkpolicies], verbs: [get, list, watch]}
- metadata: {name: "system:auth-delegator"}
  rules:
  - {apiGroups: [authentication.k8s.io], resources: [tokenreviews], verbs: [create]}
  - {apiGroups: [authorization.k8s.io], resources: [subjectaccessreviews], verbs: [create]}
)";

std::vector<json::value> parse_roles() {
  auto parsed = json::parse_yaml(kRoles);
  if (!parsed || !parsed->is_array()) throw std::logic_error("the bootstrap ClusterRoles do not parse");
  std::vector<json::value> roles;
  for (json::value& role : parsed->as_array()) {
    json::object& meta = role.as_object()["metadata"].as_object();
    json::value& labels = meta["labels"];
    if (!labels.is_object()) labels = json::object{};
    labels.as_object()["kubernetes.io/bootstrapping"] = "rbac-defaults";
    meta["annotations"] = json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}};
    roles.push_back(std::move(role));
  }
  return roles;
}

}  // namespace

const std::vector<json::value>& default_cluster_roles() {
  static const std::vector<json::value> roles = parse_roles();
  return roles;
}

}  // namespace kueuepp::kube::server
