// Every x-kubernetes-validations rule of the Kueue CRDs, each with inputs that pass and
// inputs that fail (checked for coverage against the CRDs themselves), evaluated with
// self/oldSelf bound to JSON values as kube-apiserver binds them.

#include <set>

#include "kube/apiserver/schema/cel/program.hpp"
#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema::cel {
namespace {

using kube::schema::testing::J;

constexpr const char* kPass = "";
constexpr const char* kFail = "false";

struct RuleCase {
  const char* rule;
  const char* self;
  const char* old_self;  // nullptr: not an update
  const char* expected;  // kPass, kFail, or a substring of the evaluation error
};

const RuleCase kCases[] = {
    // 0: admissionchecks/v1beta1:.spec.controllerName: field is immutable
    {R"j(self == oldSelf)j",
     R"j("a")j", R"j("a")j", kPass},
    {R"j(self == oldSelf)j",
     R"j("a")j", R"j("b")j", kFail},
    // 1: clusterqueues/v1beta1:.spec: borrowingLimit must be nil when cohort is empty
    {R"j(!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true)j",
     R"j({"resourceGroups":[{"flavors":[{"resources":[{"name":"cpu"}]}]}]})j", nullptr, kPass},
    {R"j(!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true)j",
     R"j({"resourceGroups":[{"flavors":[{"resources":[{"name":"cpu","borrowingLimit":"1"}]}]}]})j", nullptr, kFail},
    {R"j(!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true)j",
     R"j({"cohort":"c","resourceGroups":[{"flavors":[{"resources":[{"name":"cpu","borrowingLimit":"1"}]}]}]})j", nullptr, kPass},
    {R"j(!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true)j",
     R"j({})j", nullptr, kPass},
    // 2: clusterqueues/v1beta1:.spec.flavorFungibility: preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor
    {R"j(!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == 'TryNextFlavor'))j",
     R"j({"whenCanBorrow":"MayStopSearch","whenCanPreempt":"TryNextFlavor"})j", nullptr, kPass},
    {R"j(!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == 'TryNextFlavor'))j",
     R"j({"preference":"BorrowingOverPreemption","whenCanBorrow":"TryNextFlavor","whenCanPreempt":"TryNextFlavor"})j", nullptr, kPass},
    {R"j(!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == 'TryNextFlavor'))j",
     R"j({"preference":"BorrowingOverPreemption","whenCanBorrow":"MayStopSearch","whenCanPreempt":"TryNextFlavor"})j", nullptr, kFail},
    // 3: clusterqueues/v1beta1:.spec.preemption: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never
    {R"j(!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  self.borrowWithinCohort.policy != 'Never'))j",
     R"j({"reclaimWithinCohort":"Any","borrowWithinCohort":{"policy":"LowerPriority"}})j", nullptr, kPass},
    {R"j(!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  self.borrowWithinCohort.policy != 'Never'))j",
     R"j({"reclaimWithinCohort":"Never","borrowWithinCohort":{"policy":"Never"}})j", nullptr, kPass},
    {R"j(!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  self.borrowWithinCohort.policy != 'Never'))j",
     R"j({"reclaimWithinCohort":"Never"})j", nullptr, kPass},
    {R"j(!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  self.borrowWithinCohort.policy != 'Never'))j",
     R"j({"reclaimWithinCohort":"Never","borrowWithinCohort":{"policy":"LowerPriority"}})j", nullptr, kFail},
    // 4: clusterqueues/v1beta1:.spec.resourceGroups[]: flavors must have the same number of resources as the coveredResources
    {R"j(self.flavors.all(x, size(x.resources) == size(self.coveredResources)))j",
     R"j({"coveredResources":["cpu","memory"],"flavors":[{"resources":[{"name":"cpu"},{"name":"memory"}]}]})j", nullptr, kPass},
    {R"j(self.flavors.all(x, size(x.resources) == size(self.coveredResources)))j",
     R"j({"coveredResources":["cpu","memory"],"flavors":[{"resources":[{"name":"cpu"},{"name":"memory"}]},{"resources":[{"name":"cpu"}]}]})j", nullptr, kFail},
    // 5: clusterqueues/v1beta2:.spec: borrowingLimit must be nil when cohort is empty
    {R"j(!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true)j",
     R"j({"resourceGroups":[{"flavors":[{"resources":[{"name":"cpu","nominalQuota":"1"}]}]}]})j", nullptr, kPass},
    {R"j(!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true)j",
     R"j({"resourceGroups":[{"flavors":[{"resources":[{"name":"cpu","borrowingLimit":"1"}]}]}]})j", nullptr, kFail},
    {R"j(!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true)j",
     R"j({"cohortName":"c","resourceGroups":[{"flavors":[{"resources":[{"name":"cpu","borrowingLimit":"1"}]}]}]})j", nullptr, kPass},
    // 6: multikueueclusters/v1beta2:.spec.clusterSource: exactly one of the fields in [kubeConfig clusterProfileRef] must be set
    {R"j([has(self.kubeConfig),has(self.clusterProfileRef)].filter(x,x==true).size() == 1)j",
     R"j({"kubeConfig":{"location":"s","locationType":"Secret"}})j", nullptr, kPass},
    {R"j([has(self.kubeConfig),has(self.clusterProfileRef)].filter(x,x==true).size() == 1)j",
     R"j({"clusterProfileRef":{"name":"p"}})j", nullptr, kPass},
    {R"j([has(self.kubeConfig),has(self.clusterProfileRef)].filter(x,x==true).size() == 1)j",
     R"j({})j", nullptr, kFail},
    {R"j([has(self.kubeConfig),has(self.clusterProfileRef)].filter(x,x==true).size() == 1)j",
     R"j({"kubeConfig":{},"clusterProfileRef":{}})j", nullptr, kFail},
    // 7: multikueueconfigs/v1beta2:.spec.clusters: must be unique
    {R"j(size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0)j",
     R"j(["a","b","c"])j", nullptr, kPass},
    {R"j(size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0)j",
     R"j([])j", nullptr, kPass},
    {R"j(size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0)j",
     R"j(["a","b","a"])j", nullptr, kFail},
    // 8: resourceflavors/v1beta1:.spec: at least one nodeLabel is required when topology is set
    {R"j(!has(self.topologyName) || self.nodeLabels.size() >= 1)j",
     R"j({"nodeLabels":{"a":"b"}})j", nullptr, kPass},
    {R"j(!has(self.topologyName) || self.nodeLabels.size() >= 1)j",
     R"j({"topologyName":"t","nodeLabels":{"a":"b"}})j", nullptr, kPass},
    {R"j(!has(self.topologyName) || self.nodeLabels.size() >= 1)j",
     R"j({"topologyName":"t","nodeLabels":{}})j", nullptr, kFail},
    {R"j(!has(self.topologyName) || self.nodeLabels.size() >= 1)j",
     R"j({"topologyName":"t"})j", nullptr, R"j(no such key: nodeLabels)j"},
    // 9: resourceflavors/v1beta1:.spec: topologyName is immutable when topologyName is set
    {R"j(!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == oldSelf.topologyName))j",
     R"j({"topologyName":"t"})j", R"j({"topologyName":"t"})j", kPass},
    {R"j(!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == oldSelf.topologyName))j",
     R"j({"topologyName":"t"})j", R"j({})j", kPass},
    {R"j(!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == oldSelf.topologyName))j",
     R"j({})j", R"j({"topologyName":"t"})j", kFail},
    {R"j(!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == oldSelf.topologyName))j",
     R"j({"topologyName":"u"})j", R"j({"topologyName":"t"})j", kFail},
    // 10: resourceflavors/v1beta1:.spec.nodeTaints: supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'
    {R"j(self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute']))j",
     R"j([{"key":"k","effect":"NoSchedule"},{"key":"k","effect":"NoExecute"}])j", nullptr, kPass},
    {R"j(self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute']))j",
     R"j([{"key":"k","effect":"Sometimes"}])j", nullptr, kFail},
    {R"j(self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute']))j",
     R"j([])j", nullptr, kPass},
    // 11: resourceflavors/v1beta1:.spec.tolerations: operator must be Exists when 'key' is empty, which means 'match all values and all keys'
    {R"j(self.all(x, !has(x.key) ? x.operator == 'Exists' : true))j",
     R"j([{"key":"k","operator":"Equal"},{"operator":"Exists"}])j", nullptr, kPass},
    {R"j(self.all(x, !has(x.key) ? x.operator == 'Exists' : true))j",
     R"j([{"operator":"Equal"}])j", nullptr, kFail},
    // 12: resourceflavors/v1beta1:.spec.tolerations: effect must be 'NoExecute' when 'tolerationSeconds' is set
    {R"j(self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true))j",
     R"j([{"effect":"NoExecute","tolerationSeconds":30},{"effect":"NoSchedule"}])j", nullptr, kPass},
    {R"j(self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true))j",
     R"j([{"effect":"NoSchedule","tolerationSeconds":30}])j", nullptr, kFail},
    // 13: resourceflavors/v1beta1:.spec.tolerations: supported toleration values: 'Equal'(default), 'Exists'
    {R"j(self.all(x, !has(x.operator) || x.operator in ['Equal', 'Exists']))j",
     R"j([{"key":"k"},{"key":"k","operator":"Exists"},{"key":"k","operator":"Equal"}])j", nullptr, kPass},
    {R"j(self.all(x, !has(x.operator) || x.operator in ['Equal', 'Exists']))j",
     R"j([{"key":"k","operator":"Matches"}])j", nullptr, kFail},
    // 14: resourceflavors/v1beta1:.spec.tolerations: a value must be empty when 'operator' is 'Exists'
    {R"j(self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true))j",
     R"j([{"key":"k","operator":"Exists"},{"key":"k","operator":"Equal","value":"v"}])j", nullptr, kPass},
    {R"j(self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true))j",
     R"j([{"key":"k","operator":"Exists","value":"v"}])j", nullptr, kFail},
    // 15: resourceflavors/v1beta1:.spec.tolerations: supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'
    {R"j(self.all(x, !has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute']))j",
     R"j([{"key":"k"},{"key":"k","effect":"PreferNoSchedule"}])j", nullptr, kPass},
    {R"j(self.all(x, !has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute']))j",
     R"j([{"key":"k","effect":"Always"}])j", nullptr, kFail},
    // 16: topologies/v1beta1:.spec.levels: the kubernetes.io/hostname label can only be used at the lowest level of topology
    {R"j(size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname')j",
     R"j([{"nodeLabel":"rack"},{"nodeLabel":"kubernetes.io/hostname"}])j", nullptr, kPass},
    {R"j(size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname')j",
     R"j([{"nodeLabel":"block"},{"nodeLabel":"rack"}])j", nullptr, kPass},
    {R"j(size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname')j",
     R"j([{"nodeLabel":"kubernetes.io/hostname"},{"nodeLabel":"rack"}])j", nullptr, kFail},
    // 17: topologies/v1beta2:.spec.levels: levels are mutable only when kubernetes.io/hostname is the lowest level both before and after the change
    {R"j(self == oldSelf || (self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname' && oldSelf[size(oldSelf) - 1].nodeLabel == 'kubernetes.io/hostname'))j",
     R"j([{"nodeLabel":"rack"}])j", R"j([{"nodeLabel":"rack"}])j", kPass},
    {R"j(self == oldSelf || (self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname' && oldSelf[size(oldSelf) - 1].nodeLabel == 'kubernetes.io/hostname'))j",
     R"j([{"nodeLabel":"block"},{"nodeLabel":"kubernetes.io/hostname"}])j", R"j([{"nodeLabel":"rack"},{"nodeLabel":"kubernetes.io/hostname"}])j", kPass},
    {R"j(self == oldSelf || (self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname' && oldSelf[size(oldSelf) - 1].nodeLabel == 'kubernetes.io/hostname'))j",
     R"j([{"nodeLabel":"block"}])j", R"j([{"nodeLabel":"rack"}])j", kFail},
    {R"j(self == oldSelf || (self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname' && oldSelf[size(oldSelf) - 1].nodeLabel == 'kubernetes.io/hostname'))j",
     R"j([{"nodeLabel":"block"},{"nodeLabel":"kubernetes.io/hostname"}])j", R"j([{"nodeLabel":"rack"}])j", kFail},
    // 18: workloads/v1beta1:: podSetAssignments must have the same number of podSets as the spec
    {R"j(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(self.status.admission) ? size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true)j",
     R"j({"spec":{"podSets":[{"name":"a"}]},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}],"admission":{"podSetAssignments":[{"name":"a"}]}}})j", nullptr, kPass},
    {R"j(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(self.status.admission) ? size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true)j",
     R"j({"spec":{"podSets":[{"name":"a"}]},"status":{"conditions":[{"type":"QuotaReserved","status":"False"}],"admission":{"podSetAssignments":[]}}})j", nullptr, kPass},
    {R"j(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(self.status.admission) ? size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true)j",
     R"j({"spec":{"podSets":[{"name":"a"}]}})j", nullptr, kPass},
    {R"j(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(self.status.admission) ? size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true)j",
     R"j({"spec":{"podSets":[{"name":"a"}]},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}],"admission":{"podSetAssignments":[]}}})j", nullptr, kFail},
    // 19: workloads/v1beta1:: priorityClassSource is immutable while workload quota reserved
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassSource) && has(self.spec.priorityClassSource)) ? (oldSelf.spec.priorityClassSource == self.spec.priorityClassSource) : true)j",
     R"j({"spec":{"priorityClassSource":"a"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", R"j({"spec":{"priorityClassSource":"a"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassSource) && has(self.spec.priorityClassSource)) ? (oldSelf.spec.priorityClassSource == self.spec.priorityClassSource) : true)j",
     R"j({"spec":{"priorityClassSource":"b"}})j", R"j({"spec":{"priorityClassSource":"a"}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassSource) && has(self.spec.priorityClassSource)) ? (oldSelf.spec.priorityClassSource == self.spec.priorityClassSource) : true)j",
     R"j({"spec":{"priorityClassSource":"b"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", R"j({"spec":{"priorityClassSource":"a"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    // 20: workloads/v1beta1:: priorityClassName is immutable while workload quota reserved and priorityClassSource is not equal to kueue.x-k8s.io/workloadpriorityclass
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassSource) && has(self.spec.priorityClassSource) && (self.spec.priorityClassSource != 'kueue.x-k8s.io/workloadpriorityclass') && has(oldSelf.spec.priorityClassName) && has(self.spec.priorityClassName)) ? (oldSelf.spec.priorityClassName == self.spec.priorityClassName) : true)j",
     R"j({"spec":{"priorityClassSource":"scheduling.k8s.io/priorityclass","priorityClassName":"a"}})j", R"j({"spec":{"priorityClassSource":"scheduling.k8s.io/priorityclass","priorityClassName":"a"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassSource) && has(self.spec.priorityClassSource) && (self.spec.priorityClassSource != 'kueue.x-k8s.io/workloadpriorityclass') && has(oldSelf.spec.priorityClassName) && has(self.spec.priorityClassName)) ? (oldSelf.spec.priorityClassName == self.spec.priorityClassName) : true)j",
     R"j({"spec":{"priorityClassSource":"kueue.x-k8s.io/workloadpriorityclass","priorityClassName":"b"}})j", R"j({"spec":{"priorityClassSource":"kueue.x-k8s.io/workloadpriorityclass","priorityClassName":"a"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassSource) && has(self.spec.priorityClassSource) && (self.spec.priorityClassSource != 'kueue.x-k8s.io/workloadpriorityclass') && has(oldSelf.spec.priorityClassName) && has(self.spec.priorityClassName)) ? (oldSelf.spec.priorityClassName == self.spec.priorityClassName) : true)j",
     R"j({"spec":{"priorityClassSource":"scheduling.k8s.io/priorityclass","priorityClassName":"b"}})j", R"j({"spec":{"priorityClassSource":"scheduling.k8s.io/priorityclass","priorityClassName":"a"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    // 21: workloads/v1beta1:: queueName is immutable while workload quota reserved
    {R"j(((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))) ? ((has(oldSelf.spec.queueName) == has(self.spec.queueName)) && (!has(oldSelf.spec.queueName) || oldSelf.spec.queueName == self.spec.queueName)) : true)j",
     R"j({"spec":{"queueName":"q"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", R"j({"spec":{"queueName":"q"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j(((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))) ? ((has(oldSelf.spec.queueName) == has(self.spec.queueName)) && (!has(oldSelf.spec.queueName) || oldSelf.spec.queueName == self.spec.queueName)) : true)j",
     R"j({"spec":{"queueName":"r"}})j", R"j({"spec":{"queueName":"q"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j(((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))) ? ((has(oldSelf.spec.queueName) == has(self.spec.queueName)) && (!has(oldSelf.spec.queueName) || oldSelf.spec.queueName == self.spec.queueName)) : true)j",
     R"j({"spec":{"queueName":"r"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", R"j({"spec":{"queueName":"q"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    {R"j(((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))) ? ((has(oldSelf.spec.queueName) == has(self.spec.queueName)) && (!has(oldSelf.spec.queueName) || oldSelf.spec.queueName == self.spec.queueName)) : true)j",
     R"j({"spec":{},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", R"j({"spec":{"queueName":"q"},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    // 22: workloads/v1beta1:: maximumExecutionTimeSeconds is immutable while workload quota reserved
    {R"j(((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')))?((has(oldSelf.spec.maximumExecutionTimeSeconds)?oldSelf.spec.maximumExecutionTimeSeconds:0) ==  (has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximumExecutionTimeSeconds:0)):true)j",
     R"j({"spec":{"maximumExecutionTimeSeconds":10},"status":{"conditions":[{"type":"Admitted","status":"True"}]}})j", R"j({"spec":{"maximumExecutionTimeSeconds":10},"status":{"conditions":[{"type":"Admitted","status":"True"}]}})j", kPass},
    {R"j(((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')))?((has(oldSelf.spec.maximumExecutionTimeSeconds)?oldSelf.spec.maximumExecutionTimeSeconds:0) ==  (has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximumExecutionTimeSeconds:0)):true)j",
     R"j({"spec":{},"status":{"conditions":[{"type":"Admitted","status":"True"}]}})j", R"j({"spec":{"maximumExecutionTimeSeconds":0},"status":{"conditions":[{"type":"Admitted","status":"True"}]}})j", kPass},
    {R"j(((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')))?((has(oldSelf.spec.maximumExecutionTimeSeconds)?oldSelf.spec.maximumExecutionTimeSeconds:0) ==  (has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximumExecutionTimeSeconds:0)):true)j",
     R"j({"spec":{"maximumExecutionTimeSeconds":20},"status":{"conditions":[{"type":"Admitted","status":"True"}]}})j", R"j({"spec":{"maximumExecutionTimeSeconds":10},"status":{"conditions":[{"type":"Admitted","status":"True"}]}})j", kFail},
    {R"j(((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')))?((has(oldSelf.spec.maximumExecutionTimeSeconds)?oldSelf.spec.maximumExecutionTimeSeconds:0) ==  (has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximumExecutionTimeSeconds:0)):true)j",
     R"j({"spec":{"maximumExecutionTimeSeconds":20}})j", R"j({"spec":{"maximumExecutionTimeSeconds":10},"status":{"conditions":[{"type":"Admitted","status":"True"}]}})j", kPass},
    // 23: workloads/v1beta1:.spec: priority should not be nil when priorityClassName is set
    {R"j(has(self.priorityClassName) ? has(self.priority) : true)j",
     R"j({"priorityClassName":"p","priority":1})j", nullptr, kPass},
    {R"j(has(self.priorityClassName) ? has(self.priority) : true)j",
     R"j({})j", nullptr, kPass},
    {R"j(has(self.priorityClassName) ? has(self.priority) : true)j",
     R"j({"priorityClassName":"p"})j", nullptr, kFail},
    // 24: workloads/v1beta1:.spec.podSets[]: minCount should be positive and less or equal to count
    {R"j(has(self.minCount) ? self.minCount <= self.count : true)j",
     R"j({"count":3,"minCount":2})j", nullptr, kPass},
    {R"j(has(self.minCount) ? self.minCount <= self.count : true)j",
     R"j({"count":3})j", nullptr, kPass},
    {R"j(has(self.minCount) ? self.minCount <= self.count : true)j",
     R"j({"count":3,"minCount":4})j", nullptr, kFail},
    // 25: workloads/v1beta1:.status: clusterName is immutable once set
    {R"j(!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName)j",
     R"j({"clusterName":"a"})j", R"j({"clusterName":"a"})j", kPass},
    {R"j(!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName)j",
     R"j({})j", R"j({"clusterName":"a"})j", kPass},
    {R"j(!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName)j",
     R"j({"clusterName":"b"})j", R"j({})j", kPass},
    {R"j(!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName)j",
     R"j({"clusterName":"b"})j", R"j({"clusterName":"a"})j", kFail},
    // 26: workloads/v1beta1:.status: clusterName and nominatedClusterNames are mutually exclusive
    {R"j(!has(self.clusterName) || (!has(self.nominatedClusterNames) || (has(self.nominatedClusterNames) && size(self.nominatedClusterNames) == 0)))j",
     R"j({"clusterName":"a"})j", nullptr, kPass},
    {R"j(!has(self.clusterName) || (!has(self.nominatedClusterNames) || (has(self.nominatedClusterNames) && size(self.nominatedClusterNames) == 0)))j",
     R"j({"clusterName":"a","nominatedClusterNames":[]})j", nullptr, kPass},
    {R"j(!has(self.clusterName) || (!has(self.nominatedClusterNames) || (has(self.nominatedClusterNames) && size(self.nominatedClusterNames) == 0)))j",
     R"j({"nominatedClusterNames":["a","b"]})j", nullptr, kPass},
    {R"j(!has(self.clusterName) || (!has(self.nominatedClusterNames) || (has(self.nominatedClusterNames) && size(self.nominatedClusterNames) == 0)))j",
     R"j({"clusterName":"a","nominatedClusterNames":["a"]})j", nullptr, kFail},
    // 27: workloads/v1beta2:: priorityClassRef is immutable while workload quota reserved
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? (!has(oldSelf.spec.priorityClassRef) && !has(self.spec.priorityClassRef)) || (has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) : true)j",
     R"j({"spec":{"priorityClassRef":{"name":"b"}}})j", R"j({"spec":{"priorityClassRef":{"name":"a"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? (!has(oldSelf.spec.priorityClassRef) && !has(self.spec.priorityClassRef)) || (has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) : true)j",
     R"j({"spec":{}})j", R"j({"spec":{},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? (!has(oldSelf.spec.priorityClassRef) && !has(self.spec.priorityClassRef)) || (has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) : true)j",
     R"j({"spec":{}})j", R"j({"spec":{"priorityClassRef":{"name":"a"}}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? (!has(oldSelf.spec.priorityClassRef) && !has(self.spec.priorityClassRef)) || (has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) : true)j",
     R"j({"spec":{}})j", R"j({"spec":{"priorityClassRef":{"name":"a"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? (!has(oldSelf.spec.priorityClassRef) && !has(self.spec.priorityClassRef)) || (has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) : true)j",
     R"j({"spec":{"priorityClassRef":{"name":"a"}}})j", R"j({"spec":{},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    // 28: workloads/v1beta2:: priorityClassRef.group is immutable while workload quota reserved
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group : true)j",
     R"j({"spec":{"priorityClassRef":{"group":"g"}}})j", R"j({"spec":{"priorityClassRef":{"group":"g"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group : true)j",
     R"j({"spec":{"priorityClassRef":{"group":"h"}}})j", R"j({"spec":{"priorityClassRef":{"group":"g"}}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group : true)j",
     R"j({"spec":{"priorityClassRef":{"group":"h"}}})j", R"j({"spec":{"priorityClassRef":{"group":"g"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    // 29: workloads/v1beta2:: priorityClassRef.kind is immutable while workload quota reserved
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind : true)j",
     R"j({"spec":{"priorityClassRef":{"kind":"K"}}})j", R"j({"spec":{"priorityClassRef":{"kind":"K"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind : true)j",
     R"j({"spec":{"priorityClassRef":{"kind":"L"}}})j", R"j({"spec":{"priorityClassRef":{"kind":"K"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    // 30: workloads/v1beta2:: priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass while workload quota reserved
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef) && self.spec.priorityClassRef.group == 'scheduling.k8s.io' && self.spec.priorityClassRef.kind == 'PriorityClass') ? oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name : true)j",
     R"j({"spec":{"priorityClassRef":{"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass","name":"b"}}})j", R"j({"spec":{"priorityClassRef":{"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass","name":"a"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef) && self.spec.priorityClassRef.group == 'scheduling.k8s.io' && self.spec.priorityClassRef.kind == 'PriorityClass') ? oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name : true)j",
     R"j({"spec":{"priorityClassRef":{"group":"scheduling.k8s.io","kind":"PriorityClass","name":"a"}}})j", R"j({"spec":{"priorityClassRef":{"group":"scheduling.k8s.io","kind":"PriorityClass","name":"a"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kPass},
    {R"j((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef) && self.spec.priorityClassRef.group == 'scheduling.k8s.io' && self.spec.priorityClassRef.kind == 'PriorityClass') ? oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name : true)j",
     R"j({"spec":{"priorityClassRef":{"group":"scheduling.k8s.io","kind":"PriorityClass","name":"b"}}})j", R"j({"spec":{"priorityClassRef":{"group":"scheduling.k8s.io","kind":"PriorityClass","name":"a"}},"status":{"conditions":[{"type":"QuotaReserved","status":"True"}]}})j", kFail},
    // 31: workloads/v1beta2:.spec: priority should not be nil when priorityClassRef is set
    {R"j(!has(self.priorityClassRef) || has(self.priority))j",
     R"j({"priorityClassRef":{"name":"p"},"priority":5})j", nullptr, kPass},
    {R"j(!has(self.priorityClassRef) || has(self.priority))j",
     R"j({})j", nullptr, kPass},
    {R"j(!has(self.priorityClassRef) || has(self.priority))j",
     R"j({"priorityClassRef":{"name":"p"}})j", nullptr, kFail},
    // 32: workloads/v1beta2:.spec.priorityClassRef: only the PriorityClass kind is allowed for the scheduling.k8s.io group
    {R"j((self.group == 'scheduling.k8s.io') ? self.kind == 'PriorityClass' : true)j",
     R"j({"group":"scheduling.k8s.io","kind":"PriorityClass"})j", nullptr, kPass},
    {R"j((self.group == 'scheduling.k8s.io') ? self.kind == 'PriorityClass' : true)j",
     R"j({"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass"})j", nullptr, kPass},
    {R"j((self.group == 'scheduling.k8s.io') ? self.kind == 'PriorityClass' : true)j",
     R"j({"group":"scheduling.k8s.io","kind":"WorkloadPriorityClass"})j", nullptr, kFail},
    // 33: workloads/v1beta2:.spec.priorityClassRef: only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group
    {R"j((self.group == 'kueue.x-k8s.io') ? self.kind == 'WorkloadPriorityClass' : true)j",
     R"j({"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass"})j", nullptr, kPass},
    {R"j((self.group == 'kueue.x-k8s.io') ? self.kind == 'WorkloadPriorityClass' : true)j",
     R"j({"group":"scheduling.k8s.io","kind":"PriorityClass"})j", nullptr, kPass},
    {R"j((self.group == 'kueue.x-k8s.io') ? self.kind == 'WorkloadPriorityClass' : true)j",
     R"j({"group":"kueue.x-k8s.io","kind":"PriorityClass"})j", nullptr, kFail},
    // 34: workloads/v1beta2:.status.admission.podSetAssignments[].topologyAssignment: valuesPerLevel must have the same length as the number of levels in this TopologyAssignment
    {R"j(self.slices.all(x, size(x.valuesPerLevel) == size(self.levels)))j",
     R"j({"levels":["a","b"],"slices":[{"valuesPerLevel":[{},{}]}]})j", nullptr, kPass},
    {R"j(self.slices.all(x, size(x.valuesPerLevel) == size(self.levels)))j",
     R"j({"levels":["a","b"],"slices":[{"valuesPerLevel":[{}]}]})j", nullptr, kFail},
    // 35: workloads/v1beta2:.status.admission.podSetAssignments[].topologyAssignment.slices[]: podCounts.individual must have length equal to domainCount
    {R"j(!has(self.podCounts.individual) || size(self.podCounts.individual) == self.domainCount)j",
     R"j({"domainCount":2,"podCounts":{"individual":[1,2]}})j", nullptr, kPass},
    {R"j(!has(self.podCounts.individual) || size(self.podCounts.individual) == self.domainCount)j",
     R"j({"domainCount":2,"podCounts":{"universal":3}})j", nullptr, kPass},
    {R"j(!has(self.podCounts.individual) || size(self.podCounts.individual) == self.domainCount)j",
     R"j({"domainCount":2,"podCounts":{"individual":[1]}})j", nullptr, kFail},
    // 36: workloads/v1beta2:.status.admission.podSetAssignments[].topologyAssignment.slices[]: valuesPerLevel.individual, if set, must have roots of length equal to domainCount of this TopologyAssignmentSlice
    {R"j(self.valuesPerLevel.all(x, !has(x.individual) || size(x.individual.roots) == self.domainCount))j",
     R"j({"domainCount":2,"valuesPerLevel":[{"individual":{"roots":["a","b"]}},{"universal":"x"}]})j", nullptr, kPass},
    {R"j(self.valuesPerLevel.all(x, !has(x.individual) || size(x.individual.roots) == self.domainCount))j",
     R"j({"domainCount":2,"valuesPerLevel":[{"individual":{"roots":["a"]}}]})j", nullptr, kFail},
    // 37: workloads/v1beta2:.status.admission.podSetAssignments[].topologyAssignment.slices[].podCounts: exactly one of the fields in [universal individual] must be set
    {R"j([has(self.universal),has(self.individual)].filter(x,x==true).size() == 1)j",
     R"j({"universal":1})j", nullptr, kPass},
    {R"j([has(self.universal),has(self.individual)].filter(x,x==true).size() == 1)j",
     R"j({"individual":[1]})j", nullptr, kPass},
    {R"j([has(self.universal),has(self.individual)].filter(x,x==true).size() == 1)j",
     R"j({})j", nullptr, kFail},
    {R"j([has(self.universal),has(self.individual)].filter(x,x==true).size() == 1)j",
     R"j({"universal":1,"individual":[1]})j", nullptr, kFail},
    // 38: workloads/v1beta2:.status.admission.podSetAssignments[].topologyAssignment.slices[].valuesPerLevel[]: exactly one of the fields in [universal individual] must be set
    {R"j(has(self.universal) != has(self.individual))j",
     R"j({"universal":"a"})j", nullptr, kPass},
    {R"j(has(self.universal) != has(self.individual))j",
     R"j({"individual":{"roots":["a"]}})j", nullptr, kPass},
    {R"j(has(self.universal) != has(self.individual))j",
     R"j({})j", nullptr, kFail},
    {R"j(has(self.universal) != has(self.individual))j",
     R"j({"universal":"a","individual":{"roots":["a"]}})j", nullptr, kFail},
};

// The outcome of a rule as validation sees it: "" (true), "false", or the error text.
std::string outcome(const RuleCase& c) {
  auto program = Program::compile(c.rule, {"self", "oldSelf"});
  if (!program) return "compile error: " + program.error().message;
  json::value self = J(c.self);
  json::value old = c.old_self != nullptr ? J(c.old_self) : json::value(nullptr);
  Value old_value = c.old_self != nullptr ? Value::from_json(old, nullptr) : Value::static_error("no such attribute");
  auto r = (*program)->evaluate({Value::from_json(self, nullptr), old_value});
  if (r.value.is_error()) return std::string(r.value.text());
  if (!r.value.is(Kind::Bool)) return "not a bool";
  return r.value.as_bool() ? "" : "false";
}

TEST(KueueRules, EveryCaseHasTheExpectedOutcome) {
  for (const RuleCase& c : kCases) {
    std::string got = outcome(c);
    if (std::string(c.expected).empty() || std::string(c.expected) == "false") {
      EXPECT_EQ(got, c.expected) << c.rule << "\n self=" << c.self;
    } else {
      EXPECT_NE(got.find(c.expected), std::string::npos) << c.rule << "\n got " << got;
    }
  }
}

void collect_rules(const json::value& schema, std::set<std::string>& out, int depth = 0) {
  if (!schema.is_object() || depth > 100) return;
  if (const json::value* rules = json::find(schema, "x-kubernetes-validations")) {
    for (const auto& r : rules->get_array()) out.insert(std::string(json::get_string(r, "rule")));
  }
  if (const json::value* props = json::find(schema, "properties")) {
    for (const auto& kv : props->get_object()) collect_rules(kv.value(), out, depth + 1);
  }
  for (const char* k : {"items", "additionalProperties"}) {
    if (const json::value* c = json::find(schema, k)) collect_rules(*c, out, depth + 1);
  }
}

// Each rule of every CRD version has at least one passing and one failing case, and the
// table has no rule that is not in the CRDs (a typo would otherwise go unnoticed).
TEST(KueueRules, EveryCrdRuleHasPassingAndFailingCases) {
  std::set<std::string> crd_rules;
  for (const std::string& plural : kube::schema::testing::crd_files()) {
    const json::value* doc = kube::schema::testing::crd(plural);
    if (doc == nullptr) GTEST_SKIP() << "Kueue CRDs not found";
    for (const auto& v : json::find_path(*doc, {"spec", "versions"})->get_array()) {
      collect_rules(*json::find_path(v, {"schema", "openAPIV3Schema"}), crd_rules);
    }
  }
  EXPECT_EQ(crd_rules.size(), 39u);
  std::set<std::string> passing, failing, tabled;
  for (const RuleCase& c : kCases) {
    tabled.insert(c.rule);
    (std::string(c.expected).empty() ? passing : failing).insert(c.rule);
  }
  for (const auto& r : crd_rules) {
    EXPECT_TRUE(passing.count(r)) << "no passing case for: " << r;
    EXPECT_TRUE(failing.count(r)) << "no failing case for: " << r;
  }
  for (const auto& r : tabled) EXPECT_TRUE(crd_rules.count(r)) << "not a Kueue CRD rule: " << r;
}

}  // namespace
}  // namespace kueuepp::kube::schema::cel
