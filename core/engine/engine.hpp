#pragma once

// The admission engine: Kueue's queueing, quota, flavor-assignment, preemption and fair
// sharing semantics over an in-memory model of the cluster's queueing objects.
//
// Callers apply objects (as a watch delivers them), report workload lifecycle events
// (finished, eviction completed), and run admission cycles. Each cycle is exactly one
// Kueue scheduling cycle (one head per ClusterQueue, nominated against the state at the
// start of the cycle, processed in Kueue's order); run_until_quiescent() runs cycles in
// memory back to back until no admission, preemption or eviction is possible, which is
// what Kueue reaches over many wall-clock cycles. Cohort trees never interact, so each
// tree is scheduled on its own (and could be on its own thread or replica).
//
// Pure and deterministic: no I/O, no clock (time is an argument), no randomness; the
// same calls in the same order give the same decisions.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/engine/assignment.hpp"
#include "core/engine/cluster_queue_state.hpp"
#include "core/engine/decisions.hpp"
#include "core/engine/engine_config.hpp"
#include "core/engine/ids.hpp"
#include "core/engine/local_queue_tallies.hpp"
#include "core/engine/preemptor.hpp"
#include "core/engine/queue_views.hpp"
#include "core/engine/quota_tree.hpp"
#include "core/engine/what_if.hpp"
#include "core/engine/workload_record.hpp"
#include "core/model/cluster_queue.hpp"
#include "core/model/resource_flavor.hpp"
#include "core/model/workload.hpp"
#include "core/string_key_map.hpp"

namespace kueuepp::core {

/// A workload as the engine sees it, for status, introspection and tests.
struct WorkloadView {
  std::string key;
  std::string cluster_queue;  ///< where it is queued or admitted ("" when unroutable)
  bool reserved = false;
  bool admitted = false;
  bool evicted = false;
  bool finished = false;
  std::optional<Admission> admission;
  PendingStatus pending;  ///< why it is not admitted (when not reserved)
  std::optional<PreemptionRecord> preempted;  ///< the last preemption of this workload
  int position = -1;  ///< 0-based position in its ClusterQueue's queue order, -1 if none
  std::vector<std::pair<std::string, std::int32_t>> pod_set_counts;  ///< spec counts
};

struct CycleSummary {
  std::size_t heads = 0;
  std::size_t admitted = 0;
  std::size_t preempted = 0;
  bool changed = false;  ///< anything happened that makes the next cycle differ
  /// A head left with flavors still to try (flavor fungibility): the next cycle resumes
  /// its scan, so it may differ even when nothing changed. Without this and `changed`, a
  /// next cycle at the same time would repeat this one exactly.
  bool untried_flavors = false;
};

class Engine {
 public:
  explicit Engine(EngineConfig config = {});
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const EngineConfig& config() const { return config_; }
  void set_config(EngineConfig config);

  // -- objects: apply creates or replaces; remove deletes ----------------------------
  void apply(const ResourceFlavor& flavor);
  void remove_resource_flavor(std::string_view name);
  void apply(const ClusterQueue& cq);
  void remove_cluster_queue(std::string_view name);
  void apply(const Cohort& cohort);
  void remove_cohort(std::string_view name);
  void apply(const LocalQueue& lq);
  void remove_local_queue(std::string_view ns, std::string_view name);
  void apply(const Namespace& ns);
  void remove_namespace(std::string_view name);
  void apply(const PriorityClass& pc);
  void remove_priority_class(std::string_view name);
  void apply(const WorkloadPriorityClass& wpc);
  void remove_workload_priority_class(std::string_view name);
  void apply(const AdmissionCheck& ac);
  void remove_admission_check(std::string_view name);
  /// A Workload object (spec and status). Errors describe an invalid workload; it is
  /// then kept out of scheduling with the error as its pending message.
  Status apply(const Workload& wl);
  void remove_workload(std::string_view key);

  // -- workload lifecycle ---------------------------------------------------------------
  /// The workload finished (its job completed or failed): its quota is released.
  Status finish_workload(std::string_view key);
  /// The job of an evicted workload has stopped: its quota is released and it is
  /// requeued as Kueue requeues it (at once after a preemption; held after a stop
  /// policy until the queue is restarted).
  Status complete_eviction(std::string_view key);
  /// spec.active became false for `cause` (e.g. AdmissionCheck, after a Deactivate
  /// decision), for a replay that has no objects to apply: the workload leaves its queue
  /// and, if it holds quota, is evicted (DeactivatedDueTo<cause>, "The workload is
  /// deactivated due to <message>"), as Kueue's Workload controller does. The controller
  /// applies the updated object instead.
  Status deactivate(std::string_view key, std::string_view cause, std::string_view message);
  /// An admission could not be written: undo it and requeue the workload. With
  /// `hold_until_update` (the write was refused because the object changed) it competes
  /// again only once a newer object is applied.
  Status forget_admission(std::string_view key, bool hold_until_update = false);

  // -- scheduling -------------------------------------------------------------------------
  /// One Kueue scheduling cycle over every cohort tree.
  CycleSummary run_cycle(Time now);
  /// Decisions made since the last call (admissions, evictions, pending reasons).
  Decisions take_decisions();

  // -- questions that change nothing -------------------------------------------------------
  /// What would happen to `wl` (a workload that does not exist yet, or a changed one) if
  /// it were applied now and one cycle ran at `now` with nothing else changing: answered
  /// on a copy of this engine, which is left as it was (state_digest() is unchanged).
  /// A workload without a UID or creation time gets "what-if" and `now`, as a new one would.
  WhatIfAnswer what_if(const Workload& wl, Time now, const RuntimeHints& hints = {}) const;
  /// A deterministic hash of everything that affects the engine's decisions: objects,
  /// workloads and their queue and quota state, the cycle counters and the decisions not
  /// taken yet. Equal digests: the same calls give the same decisions.
  std::uint64_t state_digest() const;
  /// Checks the quota trees against the workloads holding quota: every ClusterQueue's
  /// usage is the sum of its holders' usage, and every cohort's the part of its children's
  /// usage beyond what they keep locally. A failure names the first node that disagrees
  /// (an engine bug: admissions computed on that tree can exceed the quota).
  Status audit_quota() const;

  // -- queries ---------------------------------------------------------------------------
  /// One workload; `with_position` also computes its place in the queue (O(queue)).
  std::optional<WorkloadView> workload(std::string_view key, bool with_position = true) const;
  /// Every workload, in key order, without queue positions.
  std::vector<WorkloadView> workloads() const;
  /// Calls `f` once per LocalQueue that has workloads in a ClusterQueue (not finished),
  /// in no particular order: what the queue statuses count, as kept while workloads
  /// change (see retally; the status publish asks every second, and a walk over every
  /// workload of a tree each time was most of its cost).
  void for_each_local_queue_tally(const std::function<void(const LocalQueueTally&)>& f) const;
  /// Calls `f` for the finished workloads, counted per queue. The counts are kept as
  /// workloads finish: finished ones stay as long as their objects do, and a walk over
  /// them at every status publish grew with every workload ever finished.
  void for_each_finished_tally(const std::function<void(const FinishedTally&)>& f) const;
  /// Why a workload waits, rendered (empty when it is unknown or not waiting).
  PendingStatus pending_status(std::string_view key) const;
  std::optional<ClusterQueueView> cluster_queue(std::string_view name) const;
  std::vector<std::string> cluster_queue_names() const;
  /// The first `limit` pending workload keys of a ClusterQueue, in queue order.
  std::vector<std::string> pending_in_order(std::string_view cluster_queue,
                                            std::size_t limit = static_cast<std::size_t>(-1)) const;
  /// The first `limit` pending workloads of a ClusterQueue in queue order, the order its
  /// queue pops them in (parked and held ones included, as Kueue's visibility lists
  /// them); nullopt when the ClusterQueue is unknown.
  std::optional<std::vector<PendingWorkloadRef>> pending_workloads(
      std::string_view cluster_queue, std::size_t limit = static_cast<std::size_t>(-1)) const;
  /// The value of a WorkloadPriorityClass (or PriorityClass) by name; nullopt when unknown.
  std::optional<std::int32_t> workload_priority_class_value(std::string_view name) const;
  std::optional<std::int32_t> priority_class_value(std::string_view name) const;
  /// The PriorityClass with globalDefault=true (the lowest-valued one if several).
  std::optional<std::pair<std::string, std::int32_t>> default_priority_class() const;
  /// The ClusterQueue a LocalQueue names; nullopt when the LocalQueue is unknown.
  std::optional<std::string> cluster_queue_of_local_queue(std::string_view ns, std::string_view name) const;
  /// How many of the ClusterQueue's pending workloads wait for each reason (those the
  /// engine has not evaluated yet are not counted): Kueue's unadmitted-workloads gauge.
  std::map<std::string, std::int64_t> pending_reasons(std::string_view cluster_queue) const;
  /// The ClusterQueue's cohorts, its parent first, up to the root (empty without one).
  std::vector<std::string> cohort_ancestors(std::string_view cluster_queue) const;
  /// Whether any ClusterQueue has a workload waiting to be popped by a cycle.
  bool has_heads() const;
  /// Whether a cycle at `now` could do anything: evaluate a head, hand over an admission,
  /// eviction or check decision made outside a cycle, review admission checks that can
  /// lead to a decision, end a requeue backoff, or act on a changed topology. When false,
  /// run_cycle(now) finds no heads and decides nothing new, so the caller may skip it and
  /// take only the explanations decided outside a cycle (a workload that joins a parked
  /// class adopts the class's words; one in a stopped queue says so) with
  /// take_decisions(). Most versions a controller applies are the echoes of its own
  /// status writes, which leave every pending workload parked and every admitted one
  /// where it is.
  bool has_work(Time now) const;
  /// When the earliest held workload's requeue backoff ends, if any: a lower bound (a
  /// wake-up at it may find nothing due; that cycle makes it exact).
  std::optional<Time> next_requeue_time() const;
  /// How often the members of a parked class were walked to tell them their head's new
  /// words, and how many members those walks met (a cost to keep low: a class repeating
  /// its words tells only the members whose words differ).
  std::uint64_t class_walks() const { return class_walks_; }
  std::uint64_t class_members_walked() const { return class_members_walked_; }

 private:
  struct Tree {
    QuotaTree quota;
    std::vector<int> node_to_cq;
    std::vector<int> cqs;  ///< ClusterQueue indexes, in name order
    std::string root;
  };
  struct Entry;
  struct CopyTag {};
  /// A deep copy (what_if's): records, queues and trees are copied, and every pointer and
  /// view into the records of `other` is rebound to the copy's.
  Engine(const Engine& other, CopyTag);
  /// The what-if answer's start estimate, on the copy the question was answered on.
  void estimate_start(const std::string& key, const RuntimeHints& hints, WhatIfAnswer& answer);
  /// Runs cycles at `now` until nothing changes, completing every eviction at once.
  void settle(Time now);

  // -- topology (engine.cpp) --------------------------------------------------------------
  void mark_topology_dirty() { topology_dirty_ = true; }
  void ensure_topology();
  void rebuild_topology();
  void compile_cluster_queue(ClusterQueueState& cq);
  void compute_activity(ClusterQueueState& cq);
  void build_trees();
  void apply_stop_policies();
  /// A workload a stop policy holds out (Requeued=False) whose queue runs again goes
  /// back to it, and Requeued=True {ClusterQueue,LocalQueue}Restarted is written.
  void restart_if_queue_runs(WorkloadRecord& w);
  int cq_index(std::string_view name) const;
  ClusterQueueState* find_cq(std::string_view name);

  // -- workloads (engine_workloads.cpp) ----------------------------------------------------
  int record_for(const Workload& wl, bool& created);
  Status load_record(WorkloadRecord& rec, const Workload& wl);
  std::int32_t resolve_priority(const Workload& wl) const;
  void route(WorkloadRecord& rec);
  void unqueue(WorkloadRecord& rec);
  void enqueue(WorkloadRecord& rec, bool may_have_become_admissible);
  QueueOrderKey queue_key(const WorkloadRecord& rec) const;
  bool backoff_expired(const WorkloadRecord& rec) const;
  void reserve(WorkloadRecord& rec, int cq, std::vector<AdmittedPodSet> admission, Time at);
  void release(WorkloadRecord& rec);
  /// Adds `delta` (+1 or -1) to the finished count of the queues `rec` names. Every change to a
  /// finished record's queue names, or to whether it is finished, is bracketed by -1 and
  /// +1 (apply, finish_workload, remove_workload).
  void count_finished(const WorkloadRecord& rec, int delta);
  /// Sets rec.finished (and retallies).
  void set_finished(WorkloadRecord& rec, bool finished);
  /// Moves the workload's share of its LocalQueue's tally to what its state says now:
  /// called wherever its ClusterQueue, reservation, admission or finished state changes,
  /// and once at the end of apply (which costs a comparison when nothing did).
  void retally(WorkloadRecord& rec);
  /// apply's work on the record of `wl` (`created`: new just now).
  Status load_workload(WorkloadRecord& rec, const Workload& wl, bool created);
  void flush_tree_of(int cq);
  void flush_all();
  void evict(WorkloadRecord& rec, std::string reason, std::string message);
  Admission admission_of(const WorkloadRecord& rec) const;
  const Labels& namespace_labels(std::string_view ns) const;
  std::pair<std::shared_ptr<const PodPlacement>, std::uint64_t> intern_placement(const PodPlacement& p);
  std::uint64_t scheduling_hash(const WorkloadRecord& rec) const;
  void release_expired_backoffs();
  void reprioritize(const std::string& wpc_name, std::int32_t value);

  // -- admission checks (engine_checks.cpp) -----------------------------------------------
  /// The checks its ClusterQueue requires for the flavors a reserved workload was given.
  std::vector<std::string> required_checks(const WorkloadRecord& rec) const;
  /// The record's checks become exactly `required` (kept, or new and Pending).
  void sync_checks(WorkloadRecord& rec, const std::vector<std::string>& required);
  /// At a reservation: the checks required (synced into the record) and whether all are
  /// Ready already (then the workload is admitted at once).
  bool checks_at_reservation(WorkloadRecord& rec, std::vector<std::string>& required);
  /// As Kueue's eviction does: every check that is not Pending is reset to Pending.
  void reset_checks_after_eviction(WorkloadRecord& rec);
  void load_checks(WorkloadRecord& rec, const Workload& wl);
  /// Kueue's Workload controller on the checks of a workload holding quota: sync the
  /// list, admit when all are Ready, deactivate on Rejected, evict on Retry.
  void review_admission_checks(WorkloadRecord& rec);
  /// Whether review_admission_checks(rec) could decide or change anything (it returns
  /// early for the rest: no checks in play, and the workload already admitted or evicted).
  bool check_review_can_act(const WorkloadRecord& rec) const;
  /// After a topology change: every workload holding quota in a queue with checks (or
  /// listing some) is due for a review, as Kueue reviews a ClusterQueue's workloads when
  /// the queue changes.
  void review_checks_of_cluster_queues();
  /// The reviews due (workloads applied holding quota, queues changed), at the start of
  /// a cycle: decisions are made at the cycle's time, not at an object's arrival.
  void review_due_checks();

  // -- the cycle (engine_cycle.cpp) ------------------------------------------------------
  CycleSummary run_tree_cycle(Tree& tree);
  std::pair<Assignment, std::vector<PreemptionTarget>> assignments(
      SchedulingContext& ctx, Preemptor& preemptor, WorkloadRecord& wl, int cq,
      const std::vector<std::vector<std::pair<ResourceId, FlavorId>>>* nomination);
  /// Kueue's classical order of a cycle's entries, as indexes.
  std::vector<int> order_entries(const std::vector<Entry>& entries) const;
  void process_entry(SchedulingContext& ctx, Preemptor& preemptor, Entry& e,
                     std::unordered_set<int>& claimed, CycleSummary& summary);
  void admit(Entry& e, CycleSummary& summary);
  /// waitForPodsReady.blockAdmission: some workload holding quota is not PodsReady yet.
  bool admission_blocked_by_pods_ready() const;
  void requeue(Entry& e);
  std::string preemption_message(const WorkloadRecord& preemptor, const WorkloadRecord& victim,
                                 const std::string& reason) const;
  std::string cq_path(int cq) const;
  PendingStatus render(const PendingExplanation& e, const WorkloadRecord& rec) const;
  void explain_class(ClusterQueueState& cq, const WorkloadRecord& evaluated);
  void adopt_class_explanation(const ClusterQueueState& cq, WorkloadRecord& rec);
  /// `rec` just joined an equivalence class of `cq`: unless it carries the words the
  /// class was last told (it adopted them), it is told at the class's next evaluation.
  void note_class_join(ClusterQueueState& cq, const WorkloadRecord& rec);
  /// The cycle gave `rec`, a member of class `hash` (or about to be), new words: the
  /// class's own take the class's stamp, others make it a stray of the class.
  void note_words_changed(ClusterQueueState& cq, std::uint64_t hash, WorkloadRecord& rec);
  /// The class is told its words again: only its strays can need them.
  void tell_strays(ClusterQueueState& cq, std::uint64_t hash, ClusterQueueState::ClassExplained& note);
  /// The explanation of `rec` changed outside a class broadcast: its class (as queued,
  /// and as it will be) must be told again.
  void forget_class_notes_of(const WorkloadRecord& rec);

  EngineConfig config_;
  SymbolTable resources_;
  SymbolTable flavors_;
  std::map<std::string, ResourceFlavor, std::less<>> flavor_specs_;
  std::vector<const ResourceFlavor*> flavor_by_id_;
  std::vector<ClusterQueueState> cqs_;
  std::vector<bool> cq_exists_;
  std::map<std::string, int, std::less<>> cq_by_name_;
  std::map<std::string, Cohort, std::less<>> cohorts_;
  std::map<std::string, LocalQueue, std::less<>> local_queues_;  ///< key ns/name
  StringKeyMap<Namespace> namespaces_;  ///< looked up for every head in every cycle
  mutable StringKeyMap<Labels> implicit_namespaces_;
  std::map<std::string, PriorityClass, std::less<>> priority_classes_;
  std::map<std::string, WorkloadPriorityClass, std::less<>> workload_priority_classes_;
  std::map<std::string, AdmissionCheck, std::less<>> admission_checks_;

  std::vector<std::unique_ptr<WorkloadRecord>> workloads_;
  /// The LocalQueue tallies, kept by retally() as workloads change.
  LocalQueueTallies lq_tallies_;
  std::vector<int> free_ids_;
  /// The finished workloads per (admitting ClusterQueue, namespace, LocalQueue); see
  /// count_finished.
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> finished_counts_;
  std::uint64_t class_walks_ = 0;
  std::uint64_t class_members_walked_ = 0;
  std::uint64_t pending_stamps_ = 0;  ///< the last PendingExplanation::stamp given
  std::unordered_map<std::string_view, int> by_key_;  ///< views of WorkloadRecord::key
  std::unordered_map<std::string, std::pair<std::shared_ptr<const PodPlacement>, std::uint64_t>> placements_;

  std::vector<Tree> trees_;
  bool topology_dirty_ = true;
  std::int64_t cycle_ = 0;
  Time now_{};
  /// The earliest requeueAt of a workload held by a backoff (none: Time::max()), so that
  /// a cycle only scans for expired backoffs when one can have expired.
  Time earliest_backoff_ = Time::max();
  Decisions outbox_;
  std::unordered_set<int> checks_due_;  ///< workload ids whose admission checks the next cycle reviews
  bool blocked_ = false;  ///< the current cycle waits for PodsReady
};

}  // namespace kueuepp::core
