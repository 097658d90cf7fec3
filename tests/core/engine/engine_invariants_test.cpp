// Randomized invariant tests of the admission engine: thousands of generated cohort
// trees, queues and arrival orders. After every cycle no ClusterQueue or cohort holds
// more than its quota and limits allow (checked with an independent computation of the
// quota tree from the admitted workloads), no workload holds quota twice, partial
// admissions stay within [minCount, count], the same input always produces the same
// decisions, and a cycle the engine says has no work (Engine::has_work) decides nothing.

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <sstream>

#include "core/engine/engine.hpp"
#include "tests/core/engine/generated_cluster.hpp"
#include "tests/core/engine/local_queue_tallies_recount.hpp"

namespace kueuepp::core {
namespace {

using testing::Generated;
using testing::GeneratedNode;
using testing::GeneratedQuota;
using testing::generate;


// -- the independent quota check ---------------------------------------------------------

/// Recomputes the quota tree from the generated specs (static) and the admitted
/// workloads (per check), independently of the engine's incremental accounting.
class Checker {
 public:
  explicit Checker(const Generated& g) {
    for (const auto& n : g.nodes) {
      Node& node = nodes_[n.name];
      node.spec = &n;
      for (const auto& q : n.quotas) node.quotas[key(q.flavor, q.resource)] = &q;
    }
    for (const auto& n : g.nodes) {
      if (!n.parent.empty()) nodes_[n.parent].children.push_back(&nodes_[n.name]);
    }
    for (const auto& n : g.nodes) {
      for (const auto& q : n.quotas) frs_.insert(key(q.flavor, q.resource));
    }
  }

  static std::string key(const std::string& f, const std::string& r) { return f + "/" + r; }

  void reset() { usage_.clear(); }
  void add(const std::string& cq, const std::string& fr, std::int64_t v) {
    usage_[cq][fr] += v;
    frs_.insert(fr);
  }

  /// Every node stays within its subtree quota (roots) or within what its parent may
  /// lend it (borrowing limit).
  std::string violations() {
    std::ostringstream out;
    for (const auto& fr : frs_) {
      for (auto& [name, n] : nodes_) {
        std::int64_t u = used(n, fr);
        std::int64_t s = subtree(n, fr);
        if (n.spec->parent.empty()) {
          if (u > s) out << name << " " << fr << ": usage " << u << " > subtree quota " << s << "; ";
          continue;
        }
        auto q = n.quotas.find(fr);
        if (q != n.quotas.end() && q->second->borrowing_limit) {
          std::int64_t lq = local(n, fr);
          std::int64_t in_parent = std::max<std::int64_t>(0, u - lq);
          std::int64_t allowed = (s - lq) + *q->second->borrowing_limit * 1000;
          if (in_parent > allowed) {
            out << name << " " << fr << ": takes " << in_parent << " from its parent, limit " << allowed << "; ";
          }
        }
      }
    }
    return out.str();
  }

 private:
  struct Node {
    const GeneratedNode* spec = nullptr;
    std::map<std::string, const GeneratedQuota*> quotas;
    std::vector<Node*> children;
  };

  std::int64_t subtree(const Node& n, const std::string& fr) const {
    auto q = n.quotas.find(fr);
    std::int64_t s = q != n.quotas.end() ? q->second->nominal * 1000 : 0;
    for (const Node* c : n.children) s += subtree(*c, fr) - local(*c, fr);
    return s;
  }
  std::int64_t local(const Node& n, const std::string& fr) const {
    auto q = n.quotas.find(fr);
    if (q == n.quotas.end() || !q->second->lending_limit) return 0;
    return std::max<std::int64_t>(0, subtree(n, fr) - *q->second->lending_limit * 1000);
  }
  std::int64_t used(const Node& n, const std::string& fr) const {
    if (n.spec->is_cq) {
      auto it = usage_.find(n.spec->name);
      if (it == usage_.end()) return 0;
      auto jt = it->second.find(fr);
      return jt == it->second.end() ? 0 : jt->second;
    }
    std::int64_t s = 0;
    for (const Node* c : n.children) s += std::max<std::int64_t>(0, used(*c, fr) - local(*c, fr));
    return s;
  }

  std::map<std::string, Node> nodes_;
  std::set<std::string> frs_;
  std::map<std::string, std::map<std::string, std::int64_t>> usage_;
};

struct SimulationRun {
  std::vector<std::string> trace;  // every decision, in order
  std::string failure;
};

SimulationRun simulate(const Generated& g, bool check) {
  SimulationRun run;
  Engine engine(g.config);
  for (const auto& f : g.flavors) engine.apply(f);
  for (const auto& c : g.cohorts) engine.apply(c);
  for (const auto& cq : g.cqs) engine.apply(cq);
  for (const auto& lq : g.lqs) engine.apply(lq);
  std::size_t half = g.workloads.size() / 2;
  for (std::size_t i = 0; i < half; ++i) (void)engine.apply(g.workloads[i]);

  Time now = time_from_seconds(100000);
  Checker checker(g);
  std::mt19937_64 rng(g.workloads.size());
  std::map<std::string, std::string> admitted_to;  // workload -> the ClusterQueue of its last admission
  std::map<std::string, const Workload*> spec_of;
  for (const auto& w : g.workloads) spec_of[w.key()] = &w;
  auto cycle_until_quiet = [&]() -> bool {
    std::size_t idle = 0;
    for (int c = 0; c < 2000; ++c) {
      // The promise the tree actor skips rounds on: no work, no heads and no decision
      // (beyond the explanations decided on applying, taken without a cycle).
      const bool work = engine.has_work(now);
      if (!work) {
        Decisions outside = engine.take_decisions();
        if (!outside.admissions.empty() || !outside.evictions.empty() || !outside.checks.empty()) {
          run.failure = "has_work said no with a decision waiting";
          return false;
        }
      }
      CycleSummary s = engine.run_cycle(now);
      now += std::chrono::seconds(1);
      Decisions d = engine.take_decisions();
      // The quota trees agree with the workloads holding quota after every cycle.
      if (auto audit = engine.audit_quota(); !audit) {
        run.failure = "quota audit after cycle " + std::to_string(c) + ": " + audit.error().message;
        return false;
      }
      if (!work && (s.heads != 0 || !d.empty())) {
        run.failure = "has_work said no, yet the cycle had " + std::to_string(s.heads) + " heads and " +
                      std::to_string(d.admissions.size() + d.evictions.size() + d.pending.size()) + " decisions";
        return false;
      }
      for (const auto& a : d.admissions) {
        std::string t = "admit " + a.workload + " " + a.admission.cluster_queue;
        for (const auto& ps : a.admission.pod_set_assignments) {
          for (const auto& [r, f] : ps.flavors) t += " " + ps.name + "." + r + "=" + f;
          t += " n=" + std::to_string(ps.count.value_or(-1));
        }
        run.trace.push_back(t);
        admitted_to[a.workload] = a.admission.cluster_queue;
      }
      if (check && !d.evictions.empty()) {
        // Before this cycle's victims stop (they hold their quota until then), everything
        // holding quota but the admissions marked after_preemptions fits: those are the
        // only ones a writer must hold back until the victims' evictions have landed.
        std::set<std::string> marked;
        for (const auto& a : d.admissions) {
          if (a.after_preemptions) marked.insert(a.workload);
        }
        checker.reset();
        for (const auto& v : engine.workloads()) {
          if (!v.reserved || marked.count(v.key) != 0) continue;
          for (const auto& ps : v.admission->pod_set_assignments) {
            for (const auto& [r, f] : ps.flavors) {
              checker.add(v.admission->cluster_queue, Checker::key(f, r), ps.resource_usage.at(r).milli());
            }
          }
        }
        if (std::string v = checker.violations(); !v.empty()) {
          run.failure = "unmarked admissions over quota beside the victims of cycle " + std::to_string(c) + ": " + v;
          return false;
        }
      }
      for (const auto& e : d.evictions) {
        run.trace.push_back("evict " + e.workload + " by " + e.preemptor + " " + e.preemption_reason);
        (void)engine.complete_eviction(e.workload);
      }
      if (check) {
        // Independent recomputation of every queue's usage from the admissions.
        checker.reset();
        std::set<std::string> holders;
        std::size_t reserved = 0;
        for (const auto& v : engine.workloads()) {
          if (!v.reserved) continue;
          ++reserved;
          if (!holders.insert(v.key).second) {
            run.failure = v.key + " holds quota twice";
            return false;
          }
          const Workload* spec = spec_of.at(v.key);
          for (std::size_t i = 0; i < v.admission->pod_set_assignments.size(); ++i) {
            const auto& ps = v.admission->pod_set_assignments[i];
            std::int32_t count = ps.count.value_or(-1);
            const PodSet& sps = spec->pod_sets[i];
            if (count > sps.count || count < sps.min_count.value_or(sps.count)) {
              run.failure = v.key + " admitted with count " + std::to_string(count) + " outside [minCount, count]";
              return false;
            }
            for (const auto& [r, f] : ps.flavors) {
              checker.add(v.admission->cluster_queue, Checker::key(f, r), ps.resource_usage.at(r).milli());
            }
          }
        }
        std::size_t reserving = 0;
        for (const auto& name : engine.cluster_queue_names()) reserving += engine.cluster_queue(name)->reserving;
        if (reserving != reserved) {
          run.failure = "queues report " + std::to_string(reserving) + " reserving workloads, workloads say " +
                        std::to_string(reserved);
          return false;
        }
        // The finished counts kept as workloads finish agree with a recount.
        std::map<std::string, std::size_t> kept, recounted;
        engine.for_each_finished_tally([&](const FinishedTally& f) {
          kept[std::string(f.cluster_queue) + " " + std::string(f.ns) + " " + std::string(f.local_queue)] += f.count;
        });
        for (const auto& w : engine.workloads()) {
          if (!w.finished) continue;
          const Workload& spec = *spec_of.at(w.key);
          ++recounted[admitted_to[w.key] + " " + spec.ns + " " + spec.queue_name];
        }
        if (kept != recounted) {
          run.failure = "finished counts kept: " + std::to_string(kept.size()) + " queues, recounted: " +
                        std::to_string(recounted.size());
          return false;
        }
        // The LocalQueue tallies kept as workloads change agree with a recount of the views.
        const std::string diff = testing::tally_differences(
            testing::kept_tallies(engine), testing::recounted_tallies(engine, [&](const std::string& key) {
              const Workload& spec = *spec_of.at(key);
              return spec.ns + " " + spec.queue_name;
            }));
        if (!diff.empty()) {
          run.failure = "LocalQueue tallies differ from a recount" + diff;
          return false;
        }
        std::string v = checker.violations();
        if (!v.empty()) {
          run.failure = "quota exceeded after a cycle: " + v;
          return false;
        }
      }
      if (s.heads == 0 && d.evictions.empty()) break;
      if (s.changed || !d.evictions.empty()) {
        idle = 0;
      } else if (++idle > 8) {  // > 2 x the flavors of a resource group
        break;
      }
    }
    return true;
  };

  if (!cycle_until_quiet()) return run;
  for (std::size_t i = half; i < g.workloads.size(); ++i) (void)engine.apply(g.workloads[i]);
  if (!cycle_until_quiet()) return run;
  // Finish a random half of the admitted workloads, then settle again.
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> admitted;
    for (const auto& v : engine.workloads()) {
      if (v.reserved) admitted.push_back(v.key);
    }
    for (const auto& k : admitted) {
      if (rng() % 2 == 0) {
        (void)engine.finish_workload(k);
        run.trace.push_back("finish " + k);
      }
    }
    if (!cycle_until_quiet()) return run;
  }
  return run;
}

// The seeds 1..2000 in ranges of 100, one test entry each: together they run the same
// simulations as one loop over all of them, and a slow or failing range names its seeds.
constexpr std::uint64_t kSeeds = 2000;
constexpr std::uint64_t kSeedsPerRange = 100;

class EngineInvariants : public ::testing::TestWithParam<std::uint64_t> {};  // the range's first seed

TEST_P(EngineInvariants, QuotaIsNeverExceededAndDecisionsAreDeterministic) {
  const std::uint64_t first_seed = GetParam();
  int total_admissions = 0;
  int total_evictions = 0;
  for (std::uint64_t seed = first_seed; seed < first_seed + kSeedsPerRange; ++seed) {
    Generated g = generate(seed);
    SimulationRun first = simulate(g, true);
    ASSERT_TRUE(first.failure.empty()) << "seed " << seed << ": " << first.failure;
    SimulationRun second = simulate(g, false);
    ASSERT_EQ(first.trace, second.trace) << "seed " << seed << ": the same input gave different decisions";
    for (const auto& t : first.trace) {
      total_admissions += t.rfind("admit", 0) == 0;
      total_evictions += t.rfind("evict", 0) == 0;
    }
  }
  // The generator must actually exercise admission and preemption, in every range at the
  // rate the whole run was held to (more than 10000 admissions and 100 evictions in 2000
  // seeds).
  EXPECT_GT(total_admissions, static_cast<int>(10000 * kSeedsPerRange / kSeeds));
  EXPECT_GT(total_evictions, static_cast<int>(100 * kSeedsPerRange / kSeeds));
}

INSTANTIATE_TEST_SUITE_P(Seeds, EngineInvariants, ::testing::Range<std::uint64_t>(1, kSeeds + 1, kSeedsPerRange),
                         [](const ::testing::TestParamInfo<std::uint64_t>& range) {
                           return std::to_string(range.param) + "_to_" +
                                  std::to_string(range.param + kSeedsPerRange - 1);
                         });

}  // namespace
}  // namespace kueuepp::core
