#pragma once

// A SchedulingContext built by hand, for testing the flavor assigner and the preemptor on
// their own: flavors, cohorts and ClusterQueues compiled into one quota tree the way the
// engine compiles them (Engine::build_trees), workloads holding quota in it, and pending
// workloads to place. Quantities are given in whole units.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/assignment.hpp"
#include "core/engine/cluster_queue_state.hpp"
#include "core/engine/engine_config.hpp"
#include "core/engine/preemptor.hpp"
#include "core/engine/quota_tree.hpp"
#include "core/engine/scheduling_context.hpp"
#include "core/engine/workload_record.hpp"
#include "core/model/cluster_queue.hpp"
#include "core/model/resource_flavor.hpp"

namespace kueuepp::core::testing {

inline constexpr std::int64_t kMilliPerUnit = 1000;

/// One resource's quota in a flavor, in units.
struct UnitQuota {
  std::string resource;
  std::int64_t nominal = 0;
  std::optional<std::int64_t> borrowing_limit;
  std::optional<std::int64_t> lending_limit;
};

inline FlavorQuotas flavor_quotas(const std::string& flavor, const std::vector<UnitQuota>& quotas) {
  FlavorQuotas fq;
  fq.name = flavor;
  for (const auto& q : quotas) {
    ResourceQuota rq;
    rq.name = q.resource;
    rq.nominal = Quantity::from_units(q.nominal);
    if (q.borrowing_limit) rq.borrowing_limit = Quantity::from_units(*q.borrowing_limit);
    if (q.lending_limit) rq.lending_limit = Quantity::from_units(*q.lending_limit);
    fq.resources.push_back(rq);
  }
  return fq;
}

inline ResourceGroup resource_group(std::vector<std::string> covered, std::vector<FlavorQuotas> flavors) {
  ResourceGroup rg;
  rg.covered_resources = std::move(covered);
  rg.flavors = std::move(flavors);
  return rg;
}

/// ClusterQueue `name` in `cohort` ("" for none) with the given resource groups.
inline ClusterQueue cluster_queue(const std::string& name, const std::string& cohort,
                                  std::vector<ResourceGroup> groups) {
  ClusterQueue cq;
  cq.name = name;
  cq.cohort = cohort;
  cq.namespace_selector = LabelSelector{};
  cq.resource_groups = std::move(groups);
  return cq;
}

/// Quota a workload holds: `units` of `resource` in `flavor`.
struct Held {
  std::string flavor;
  std::string resource;
  std::int64_t units = 0;
};

/// Per-pod request of a pending pod set: `units` of `resource`.
struct PerPod {
  std::string resource;
  std::int64_t units = 0;
};

struct PendingPodSet {
  std::int32_t count = 1;
  std::vector<PerPod> per_pod;
  std::optional<std::int32_t> min_count;
  PodPlacement placement;
};

class SchedulingSetup {
 public:
  explicit SchedulingSetup(EngineConfig config = {}) : config_(std::move(config)) {}
  SchedulingSetup(const SchedulingSetup&) = delete;
  SchedulingSetup& operator=(const SchedulingSetup&) = delete;

  // -- the topology, before build() ---------------------------------------------------
  void add_flavor(ResourceFlavor flavor) {
    flavor_names_.intern(flavor.name);
    flavor_specs_.push_back(std::make_unique<ResourceFlavor>(std::move(flavor)));
  }
  /// Flavors without labels or taints.
  void add_flavors(const std::vector<std::string>& names) {
    for (const auto& n : names) add_flavor(ResourceFlavor{n, {}, {}, {}, {}});
  }
  void add_cohort(Cohort cohort) { cohorts_.push_back(std::move(cohort)); }
  void add_cluster_queue(ClusterQueue spec) { specs_.push_back(std::move(spec)); }

  /// Compiles the ClusterQueues and builds the quota tree: one tree, whose root is the
  /// only cohort without a parent (or the only ClusterQueue, when it has no cohort).
  void build() {
    for (auto& spec : specs_) {
      ClusterQueueState& cq = cqs_.emplace_back();
      cq.spec = spec;
      cq.active = true;
      for (const auto& rg : spec.resource_groups) {
        CompiledResourceGroup compiled;
        for (const auto& r : rg.covered_resources) compiled.covered.push_back(resources_.intern(r));
        for (const auto& f : rg.flavors) compiled.flavors.push_back(flavor_names_.intern(f.name));
        cq.resource_groups.push_back(std::move(compiled));
      }
    }
    flavors_.assign(flavor_names_.size(), nullptr);
    for (const auto& spec : flavor_specs_) flavors_[flavor_names_.intern(spec->name)] = spec.get();

    // Cohorts named only by ClusterQueues exist implicitly, as roots.
    for (const auto& spec : specs_) {
      if (spec.cohort.empty()) continue;
      bool known =
          std::any_of(cohorts_.begin(), cohorts_.end(), [&](const Cohort& c) { return c.name == spec.cohort; });
      if (!known) cohorts_.push_back(Cohort{spec.cohort, "", {}, 1.0});
    }
    if (cohorts_.empty()) {
      ASSERT_EQ(cqs_.size(), 1u) << "ClusterQueues without a cohort would form separate trees";
      add_cq_node(0, QuotaTree::kNoParent);
    } else {
      std::vector<const Cohort*> roots;
      for (const auto& c : cohorts_) {
        if (c.parent.empty()) roots.push_back(&c);
      }
      ASSERT_EQ(roots.size(), 1u) << "one cohort tree only";
      add_cohort_node(*roots.front(), QuotaTree::kNoParent);
      std::vector<std::size_t> by_name(cqs_.size());
      for (std::size_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
      std::sort(by_name.begin(), by_name.end(),
                [&](std::size_t a, std::size_t b) { return cqs_[a].spec.name < cqs_[b].spec.name; });
      for (std::size_t i : by_name) {
        ASSERT_FALSE(cqs_[i].spec.cohort.empty()) << "every ClusterQueue must be in the cohort tree";
        add_cq_node(i, cohort_nodes_.at(cqs_[i].spec.cohort));
      }
    }
    tree_.finalize();
  }

  // -- workloads, after build() -------------------------------------------------------
  /// A workload holding quota in ClusterQueue `cq` since `reserved_at_seconds`.
  int hold(const std::string& name, const std::string& cq, const std::vector<Held>& usage, std::int32_t priority,
           std::int64_t reserved_at_seconds = 1000) {
    WorkloadRecord& w = new_record(name, cq, priority, reserved_at_seconds);
    w.reserved = true;
    w.reserved_cq_name = cq;
    w.reserved_at = time_from_seconds(reserved_at_seconds);
    w.reserved_cycle = 0;
    for (const auto& h : usage) w.usage.add(fr(h.flavor, h.resource), h.units * kMilliPerUnit);
    ClusterQueueState& state = cqs_[static_cast<std::size_t>(w.cq)];
    state.holding.insert(w.id);
    tree_.add_usage(state.node, w.usage);
    return w.id;
  }

  /// A workload queued in ClusterQueue `cq`, not holding quota.
  WorkloadRecord& pending(const std::string& name, const std::string& cq, std::vector<PendingPodSet> pod_sets,
                          std::int32_t priority, std::int64_t created_seconds = 2000) {
    WorkloadRecord& w = new_record(name, cq, priority, created_seconds);
    for (std::size_t i = 0; i < pod_sets.size(); ++i) {
      PodSetRequest ps;
      ps.name = i == 0 ? "main" : "ps" + std::to_string(i);
      ps.count = pod_sets[i].count;
      ps.min_count = pod_sets[i].min_count;
      for (const auto& p : pod_sets[i].per_pod)
        ps.per_pod.emplace_back(resources_.intern(p.resource), p.units * kMilliPerUnit);
      std::sort(ps.per_pod.begin(), ps.per_pod.end(),
                [&](const auto& a, const auto& b) { return resources_.name(a.first) < resources_.name(b.first); });
      ps.placement = std::make_shared<const PodPlacement>(pod_sets[i].placement);
      w.pod_sets.push_back(std::move(ps));
    }
    return w;
  }
  /// One pod set of one pod asking for `per_pod`.
  WorkloadRecord& pending(const std::string& name, const std::string& cq, std::vector<PerPod> per_pod,
                          std::int32_t priority, std::int64_t created_seconds = 2000) {
    return pending(name, cq, std::vector<PendingPodSet>{PendingPodSet{1, std::move(per_pod), {}, {}}}, priority,
                   created_seconds);
  }

  // -- what the code under test works on ----------------------------------------------
  SchedulingContext& context() {
    if (!ctx_) {
      ctx_.emplace(SchedulingContext{config_,
                                     resources_,
                                     flavor_names_,
                                     flavors_,
                                     cqs_,
                                     workloads_,
                                     node_to_cq_,
                                     tree_,
                                     /*cycle=*/1,
                                     time_from_seconds(5000),
                                     {}});
    }
    return *ctx_;
  }
  EngineConfig& config() { return config_; }
  QuotaTree& tree() { return tree_; }
  int cq(const std::string& name) const {
    for (std::size_t i = 0; i < cqs_.size(); ++i) {
      if (cqs_[i].spec.name == name) return static_cast<int>(i);
    }
    ADD_FAILURE() << "no ClusterQueue " << name;
    return -1;
  }
  ClusterQueueState& cq_state(const std::string& name) { return cqs_[static_cast<std::size_t>(cq(name))]; }
  FlavorResource fr(const std::string& flavor, const std::string& resource) {
    return FlavorResource{flavor_names_.intern(flavor), resources_.intern(resource)};
  }
  const std::string& flavor_name(FlavorId f) const { return flavor_names_.name(f); }
  const std::string& resource_name(ResourceId r) const { return resources_.name(r); }
  /// Kueue's text for a reason the flavor assigner gave.
  std::string render_reason(const FitReason& r) const { return render(r, resources_, flavor_names_, flavors_); }
  WorkloadRecord& workload(int id) { return *workloads_[static_cast<std::size_t>(id)]; }
  Amounts amounts(const std::vector<Held>& entries) {
    Amounts a;
    for (const auto& e : entries) a.add(fr(e.flavor, e.resource), e.units * kMilliPerUnit);
    return a;
  }

  /// Every node's usage of every flavor-resource: what a simulation must leave as it found.
  std::vector<std::int64_t> usage_snapshot() const {
    std::vector<std::int64_t> out;
    for (int n = 0; n < tree_.size(); ++n) {
      for (FlavorResource f : tree_.flavor_resources()) out.push_back(tree_.usage(n, f));
    }
    return out;
  }

 private:
  WorkloadRecord& new_record(const std::string& name, const std::string& cq_name, std::int32_t priority,
                             std::int64_t created_seconds) {
    auto w = std::make_unique<WorkloadRecord>();
    w->id = static_cast<int>(workloads_.size());
    w->key = "default/" + name;
    w->uid = "uid-" + name;
    w->queue_name = "lq";
    w->creation = time_from_seconds(created_seconds);
    w->base_priority = priority;
    w->cq = cq(cq_name);
    workloads_.push_back(std::move(w));
    return *workloads_.back();
  }

  void set_quotas(int node, const std::vector<ResourceGroup>& groups) {
    for (const auto& rg : groups) {
      for (const auto& f : rg.flavors) {
        for (const auto& r : f.resources) {
          QuotaTree::Quota q;
          q.nominal = r.nominal.milli();
          if (r.borrowing_limit) q.borrowing_limit = r.borrowing_limit->milli();
          if (r.lending_limit) q.lending_limit = r.lending_limit->milli();
          tree_.set_quota(node, fr(f.name, r.name), q);
        }
      }
    }
  }
  void add_cohort_node(const Cohort& c, int parent) {
    int node = tree_.add_node(c.name, false, parent, c.fair_weight);
    node_to_cq_.push_back(-1);
    cohort_nodes_[c.name] = node;
    set_quotas(node, c.resource_groups);
    for (const auto& child : cohorts_) {
      if (child.parent == c.name) add_cohort_node(child, node);
    }
  }
  void add_cq_node(std::size_t index, int parent) {
    ClusterQueueState& cq = cqs_[index];
    cq.tree = 0;
    cq.node = tree_.add_node(cq.spec.name, true, parent, cq.spec.fair_weight);
    node_to_cq_.push_back(static_cast<int>(index));
    set_quotas(cq.node, cq.spec.resource_groups);
  }

  EngineConfig config_;
  SymbolTable resources_;
  SymbolTable flavor_names_;
  std::vector<std::unique_ptr<ResourceFlavor>> flavor_specs_;
  std::vector<const ResourceFlavor*> flavors_;
  std::vector<ClusterQueue> specs_;
  std::vector<Cohort> cohorts_;
  std::map<std::string, int> cohort_nodes_;
  std::vector<ClusterQueueState> cqs_;
  std::vector<std::unique_ptr<WorkloadRecord>> workloads_;
  std::vector<int> node_to_cq_;
  QuotaTree tree_;
  std::optional<SchedulingContext> ctx_;
};

/// Names the instances of a table test after their cases' `name` fields.
struct CaseName {
  template <class Case>
  std::string operator()(const ::testing::TestParamInfo<Case>& instance) const {
    return instance.param.name;
  }
};

/// The victims the Preemptor finds for `preemptor` to get `request` in its ClusterQueue
/// (every flavor-resource of the request needing preemption), as "name:reason", sorted.
/// The search must put back every workload it took out.
inline std::vector<std::string> preemption_victims(SchedulingSetup& s, const WorkloadRecord& preemptor,
                                                   const std::vector<Held>& request) {
  const auto before = s.usage_snapshot();
  const Amounts usage = s.amounts(request);
  std::vector<FlavorResource> frs;
  for (const auto& [fr, v] : usage) frs.push_back(fr);
  Preemptor search(s.context());
  std::vector<PreemptionTarget> targets = search.targets(preemptor, preemptor.cq, usage, frs);
  EXPECT_EQ(s.usage_snapshot(), before) << "the search left usage behind";
  EXPECT_TRUE(s.context().removed.empty()) << "the search left workloads marked removed";
  std::vector<std::string> victims;
  for (const auto& t : targets) victims.push_back(std::string(s.workload(t.workload).name()) + ":" + t.reason);
  std::sort(victims.begin(), victims.end());
  return victims;
}

}  // namespace kueuepp::core::testing
