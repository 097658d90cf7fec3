#pragma once

// The built-in kinds the server serves, each with its strategy, and their registration
// (the resource types discovery lists for them).

#include <memory>

#include "kube/apiserver/server/registry/resource_registry.hpp"
#include "kube/apiserver/server/store/object_store.hpp"
#include "kube/apiserver/server/strategy/strategy.hpp"

namespace kueuepp::kube::server {

using StrategyPtr = std::shared_ptr<const Strategy>;
class ServiceAllocator;

StrategyPtr make_namespace_strategy();
StrategyPtr make_job_strategy();
StrategyPtr make_pod_strategy();
/// Events are stored as core/v1 Events; this strategy serves them through /api/v1 and,
/// converting, through events.k8s.io/v1.
StrategyPtr make_event_strategy();
StrategyPtr make_lease_strategy();
StrategyPtr make_priority_class_strategy();
StrategyPtr make_config_map_strategy();
StrategyPtr make_service_account_strategy();
StrategyPtr make_crd_strategy();
StrategyPtr make_secret_strategy();
/// Services get their cluster IPs and node ports from `allocator`.
StrategyPtr make_service_strategy(std::shared_ptr<ServiceAllocator> allocator);
StrategyPtr make_deployment_strategy();
StrategyPtr make_pod_disruption_budget_strategy();
StrategyPtr make_role_strategy();
StrategyPtr make_cluster_role_strategy();
StrategyPtr make_role_binding_strategy();
StrategyPtr make_cluster_role_binding_strategy();
/// admissionregistration.k8s.io/v1 webhook configurations (webhook_configuration_strategy.cpp).
StrategyPtr make_mutating_webhook_configuration_strategy();
StrategyPtr make_validating_webhook_configuration_strategy();

/// apiregistration.k8s.io/v1 APIService (api_service_strategy.cpp).
StrategyPtr make_api_service_strategy();

/// Adds every built-in resource type to `registry`. `store` is where the server keeps
/// its objects: the Service strategy reads which addresses the stored Services hold.
void register_builtin_kinds(ResourceRegistry& registry, ObjectStore& store);

}  // namespace kueuepp::kube::server
