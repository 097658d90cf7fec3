#include "kube/apiserver/server/strategy/builtin_kinds.hpp"

#include "kube/apiserver/server/strategy/service_allocator.hpp"

namespace kueuepp::kube::server {

namespace {

struct Builtin {
  std::string group;
  std::string version;
  std::string plural;
  std::string singular;
  std::string kind;
  bool namespaced;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool status;
  bool deletecollection;
  std::string bucket_group;  ///< storage group (events.k8s.io events live in the core bucket)
  StrategyPtr strategy;
};

ResourceTypePtr to_type(Builtin b) {
  auto t = std::make_shared<ResourceType>();
  t->group = b.group;
  t->version = b.version;
  t->plural = b.plural;
  t->singular = b.singular;
  t->kind = b.kind;
  t->list_kind = b.kind + "List";
  t->namespaced = b.namespaced;
  t->short_names = std::move(b.short_names);
  t->categories = std::move(b.categories);
  t->verbs = builtin_verbs(b.deletecollection);
  t->status_subresource = b.status;
  t->storage_version = b.version;
  t->bucket = b.bucket_group + "/" + b.plural;
  t->strategy = std::move(b.strategy);
  return t;
}

}  // namespace

void register_builtin_kinds(ResourceRegistry& registry, ObjectStore& store) {
  StrategyPtr events = make_event_strategy();
  auto addresses = std::make_shared<ServiceAllocator>(store, store.bucket("/services"));
  constexpr std::string_view kRbac = "rbac.authorization.k8s.io";
  constexpr std::string_view kAdmission = "admissionregistration.k8s.io";
  // Discovery lists each group's resources in this order (kube-apiserver sorts them by
  // name); services have no deletecollection in 1.28.
  std::vector<Builtin> kinds = {
      {"", "v1", "namespaces", "namespace", "Namespace", false, {"ns"}, {}, true, false, "", make_namespace_strategy()},
      {"", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}, {}, false, true, "", make_config_map_strategy()},
      {"", "v1", "events", "event", "Event", true, {"ev"}, {}, false, true, "", events},
      {"", "v1", "pods", "pod", "Pod", true, {"po"}, {"all"}, true, true, "", make_pod_strategy()},
      {"", "v1", "secrets", "secret", "Secret", true, {}, {}, false, true, "", make_secret_strategy()},
      {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}, {}, false, true, "",
       make_service_account_strategy()},
      {"", "v1", "services", "service", "Service", true, {"svc"}, {"all"}, true, false, "",
       make_service_strategy(addresses)},
      {"apps", "v1", "deployments", "deployment", "Deployment", true, {"deploy"}, {"all"}, true, true, "apps",
       make_deployment_strategy()},
      {"apiregistration.k8s.io", "v1", "apiservices", "apiservice", "APIService", false, {}, {"api-extensions"}, true,
       true, "apiregistration.k8s.io", make_api_service_strategy()},
      {std::string(kAdmission), "v1", "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
       "MutatingWebhookConfiguration", false, {}, {"api-extensions"}, false, true, std::string(kAdmission),
       make_mutating_webhook_configuration_strategy()},
      {std::string(kAdmission), "v1", "validatingwebhookconfigurations", "validatingwebhookconfiguration",
       "ValidatingWebhookConfiguration", false, {}, {"api-extensions"}, false, true, std::string(kAdmission),
       make_validating_webhook_configuration_strategy()},
      {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition",
       "CustomResourceDefinition", false, {"crd", "crds"}, {"api-extensions"}, true, true, "apiextensions.k8s.io",
       make_crd_strategy()},
      {"batch", "v1", "jobs", "job", "Job", true, {}, {"all"}, true, true, "batch", make_job_strategy()},
      {"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, {"pdb"}, {}, true,
       true, "policy", make_pod_disruption_budget_strategy()},
      {std::string(kRbac), "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, {}, {},
       false, true, std::string(kRbac), make_cluster_role_binding_strategy()},
      {std::string(kRbac), "v1", "clusterroles", "clusterrole", "ClusterRole", false, {}, {}, false, true,
       std::string(kRbac), make_cluster_role_strategy()},
      {std::string(kRbac), "v1", "rolebindings", "rolebinding", "RoleBinding", true, {}, {}, false, true,
       std::string(kRbac), make_role_binding_strategy()},
      {std::string(kRbac), "v1", "roles", "role", "Role", true, {}, {}, false, true, std::string(kRbac),
       make_role_strategy()},
      {"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, {}, {}, false, true, "coordination.k8s.io",
       make_lease_strategy()},
      {"events.k8s.io", "v1", "events", "event", "Event", true, {"ev"}, {}, false, true, "", events},
      {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false, {"pc"}, {}, false, true,
       "scheduling.k8s.io", make_priority_class_strategy()},
  };
  // The review kinds are created and answered, never stored (kube-apiserver's
  // create-only REST): api/authorization.hpp answers them; no strategy.
  struct Review {
    const char* group;
    const char* plural;
    const char* kind;
    bool namespaced = false;
  };
  for (const Review& r : {Review{"authentication.k8s.io", "tokenreviews", "TokenReview"},
                          Review{"authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview"},
                          Review{"authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview"},
                          Review{"authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview"},
                          Review{"authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview"},
                          Review{"authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", true}}) {
    auto t = std::make_shared<ResourceType>();
    t->group = r.group;
    t->version = "v1";
    t->plural = r.plural;
    t->singular = "";
    t->kind = r.kind;
    t->list_kind = std::string(r.kind) + "List";
    t->namespaced = r.namespaced;
    t->verbs = {"create"};
    t->storage_version = "v1";
    t->bucket = std::string(r.group) + "/" + r.plural;
    registry.add_builtin(std::move(t));
  }
  for (auto& b : kinds) {
    // The events.k8s.io view stores into the core bucket with the core version.
    bool events_api = b.group == "events.k8s.io";
    ResourceTypePtr t = to_type(std::move(b));
    if (events_api) {
      auto adjusted = std::make_shared<ResourceType>(*t);
      adjusted->storage_version = "v1";
      adjusted->bucket = "/events";
      t = adjusted;
    }
    registry.add_builtin(std::move(t));
  }
}

}  // namespace kueuepp::kube::server
