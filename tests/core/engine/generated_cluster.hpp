#pragma once

// The generated clusters of the engine's randomized tests (engine_invariants_test.cpp,
// engine_what_if_test.cpp): cohort trees, queues, quotas, policies and workloads drawn
// from a seed, and the generated quotas for independent checks.

#include <array>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"

namespace kueuepp::core::testing {

struct GeneratedQuota {
  std::string flavor;
  std::string resource;
  std::int64_t nominal = 0;
  std::optional<std::int64_t> borrowing_limit;
  std::optional<std::int64_t> lending_limit;
};

struct GeneratedNode {
  std::string name;
  std::string parent;  // cohort name, "" for roots / standalone queues
  bool is_cq = false;
  std::vector<GeneratedQuota> quotas;
};

struct Generated {
  EngineConfig config;
  std::vector<ResourceFlavor> flavors;
  std::vector<Cohort> cohorts;
  std::vector<ClusterQueue> cqs;
  std::vector<LocalQueue> lqs;
  std::vector<Workload> workloads;
  std::vector<GeneratedNode> nodes;  // for the independent check
};

inline Quantity units(std::int64_t n) { return Quantity::from_units(n); }

/// Workload number `i` of a generated cluster: in namespace "ns", in one of its
/// LocalQueues, with one or two pod sets of cpu (and sometimes memory).
inline Workload generate_workload(std::mt19937_64& rng, const Generated& g, int i) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](int percent) { return pick(1, 100) <= percent; };
  Workload w;
  w.ns = "ns";
  char name[16];
  std::snprintf(name, sizeof name, "w%03d", i);
  w.name = name;
  w.uid = std::string("uid-") + name;
  w.creation = time_from_seconds(1000 + pick(0, 3) + i);
  w.queue_name = g.lqs[static_cast<std::size_t>(pick(0, static_cast<int>(g.lqs.size()) - 1))].name;
  w.priority = std::array{0, 10, 20}[static_cast<std::size_t>(pick(0, 2))];
  int podsets = chance(20) ? 2 : 1;
  for (int p = 0; p < podsets; ++p) {
    PodSet ps;
    ps.name = "ps" + std::to_string(p);
    ps.count = pick(1, 4);
    if (p == 0 && chance(25) && ps.count > 1) ps.min_count = pick(1, ps.count - 1);
    ps.per_pod_requests["cpu"] = units(pick(1, 3));
    if (chance(40)) ps.per_pod_requests["memory"] = units(pick(1, 2));
    w.pod_sets.push_back(ps);
  }
  return w;
}

/// A random cluster: 1-3 cohort trees (with child cohorts), standalone queues, quotas with
/// borrowing and lending limits, preemption and fungibility policies, and 5-40 workloads.
inline Generated generate(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](int percent) { return pick(1, 100) <= percent; };
  Generated g;
  g.config.fair_sharing = chance(30);
  if (g.config.fair_sharing && chance(30)) {
    g.config.fair_sharing_strategies = {FairSharingStrategy::LessThanInitialShare};
  }
  int nflavors = pick(1, 3);
  for (int i = 0; i < nflavors; ++i) g.flavors.push_back({"f" + std::to_string(i), {}, {}, {}, {}});
  std::vector<std::string> resources = {"cpu", "memory"};

  auto make_groups = [&](bool with_cohort, std::vector<GeneratedQuota>& quotas) {
    ResourceGroup rg;
    rg.covered_resources = chance(60) ? std::vector<std::string>{"cpu"} : resources;
    int nf = pick(1, nflavors);
    std::vector<int> order(static_cast<std::size_t>(nflavors));
    for (int i = 0; i < nflavors; ++i) order[static_cast<std::size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (int i = 0; i < nf; ++i) {
      FlavorQuotas fq;
      fq.name = "f" + std::to_string(order[static_cast<std::size_t>(i)]);
      for (const auto& r : rg.covered_resources) {
        ResourceQuota q;
        q.name = r;
        std::int64_t nominal = pick(0, 8);
        q.nominal = units(nominal);
        GeneratedQuota gq{fq.name, r, nominal, {}, {}};
        if (with_cohort && chance(30)) {
          gq.borrowing_limit = pick(0, 6);
          q.borrowing_limit = units(*gq.borrowing_limit);
        }
        if (with_cohort && chance(30)) {
          gq.lending_limit = pick(0, static_cast<int>(nominal));
          q.lending_limit = units(*gq.lending_limit);
        }
        quotas.push_back(gq);
        fq.resources.push_back(q);
      }
      rg.flavors.push_back(fq);
    }
    return std::vector<ResourceGroup>{rg};
  };

  auto add_cq = [&](const std::string& name, const std::string& cohort) {
    ClusterQueue cq;
    cq.name = name;
    cq.cohort = cohort;
    cq.namespace_selector = LabelSelector{};
    GeneratedNode node{name, cohort, true, {}};
    cq.resource_groups = make_groups(!cohort.empty(), node.quotas);
    cq.queueing_strategy = chance(25) ? QueueingStrategy::StrictFIFO : QueueingStrategy::BestEffortFIFO;
    const PreemptionPolicy within[] = {PreemptionPolicy::Never, PreemptionPolicy::LowerPriority,
                                       PreemptionPolicy::LowerOrNewerEqualPriority};
    const PreemptionPolicy reclaim[] = {PreemptionPolicy::Never, PreemptionPolicy::LowerPriority, PreemptionPolicy::Any};
    cq.preemption.within_cluster_queue = within[pick(0, 2)];
    cq.preemption.reclaim_within_cohort = reclaim[pick(0, 2)];
    if (cq.preemption.reclaim_within_cohort != PreemptionPolicy::Never && chance(30)) {
      BorrowWithinCohort b;
      b.lower_priority = true;
      if (chance(50)) b.max_priority_threshold = pick(0, 20);
      cq.preemption.borrow_within_cohort = b;
    }
    if (chance(30)) cq.flavor_fungibility.when_can_borrow = FungibilityPolicy::TryNextFlavor;
    if (chance(30)) cq.flavor_fungibility.when_can_preempt = FungibilityPolicy::MayStopSearch;
    cq.fair_weight = chance(10) ? 0.0 : (chance(50) ? 1.0 : 2.0);
    g.cqs.push_back(cq);
    g.lqs.push_back({"ns", "lq-" + name, name, StopPolicy::None, 1.0});
    g.nodes.push_back(std::move(node));
  };

  int roots = pick(1, 3);
  for (int r = 0; r < roots; ++r) {
    std::string root = "root" + std::to_string(r);
    Cohort rc;
    rc.name = root;
    GeneratedNode rnode{root, "", false, {}};
    if (chance(40)) rc.resource_groups = make_groups(false, rnode.quotas);
    g.cohorts.push_back(rc);
    g.nodes.push_back(std::move(rnode));
    int ncq = pick(1, 3);
    for (int i = 0; i < ncq; ++i) add_cq(root + "-cq" + std::to_string(i), root);
    int children = pick(0, 2);
    for (int c = 0; c < children; ++c) {
      std::string child = root + "-child" + std::to_string(c);
      Cohort cc;
      cc.name = child;
      cc.parent = root;
      GeneratedNode cnode{child, root, false, {}};
      if (chance(50)) cc.resource_groups = make_groups(true, cnode.quotas);
      g.cohorts.push_back(cc);
      g.nodes.push_back(std::move(cnode));
      int n = pick(1, 3);
      for (int i = 0; i < n; ++i) add_cq(child + "-cq" + std::to_string(i), child);
    }
  }
  int standalone = pick(0, 2);
  for (int i = 0; i < standalone; ++i) add_cq("solo" + std::to_string(i), "");

  int nwl = pick(5, 40);
  for (int i = 0; i < nwl; ++i) g.workloads.push_back(generate_workload(rng, g, i));
  return g;
}

}  // namespace kueuepp::core::testing
