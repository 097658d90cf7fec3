#pragma once

// The write path of one cohort tree, as pure logic beside its actor (as tree_router is
// beside the snapshot actor). A round's decisions become planned writes of Workload
// status, each conditional on the stored version it was computed from; their outcomes
// become what the engine forgets (Kueue's assume/forget: only a write known not to have
// landed is rolled back), what is written again once a newer version arrives (a refused
// eviction, an explanation overtaken), what is read back because its answer was lost
// (read_back.hpp), and what landed (for the tree's Events and metrics). No CAF and no
// I/O: the actor sends the planned writes, feeds their outcomes back and carries out the
// effects, so every rule here is tested directly (tests/actors/tree_writes_test.cpp).

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "actors/explanation_pacer.hpp"
#include "actors/read_back.hpp"
#include "core/engine/decisions.hpp"
#include "messages/watch_events.hpp"
#include "messages/writer_protocol.hpp"

namespace kueuepp::core {
class Engine;
}

namespace kueuepp::actors {

/// What the tree keeps of a Workload's stored version: its packed text (shared with the
/// router and the job actor), and what is read on every event or write without
/// unpacking it. The document is unpacked only to compute a write.
struct CachedWorkload {
  messages::PackedPtr packed;
  std::string resource_version;
  bool finished = false;
  bool holds_quota = false;
  bool evicted = false;  ///< Evicted=True
};

/// A write (or read) for the writer; `ticket` names it when its outcome comes back. The
/// actor adds the shard it writes for.
struct PlannedWrite {
  std::uint64_t ticket = 0;
  messages::WriteRequest request;
};

/// A write that landed, for the tree's Events and metrics: `object` is the version it was
/// written on (or the version read back), `decided_at` the round's time.
struct Landed {
  std::variant<core::AdmissionDecision, core::EvictionDecision, core::AdmissionCheckDecision> decision;
  messages::ObjectPtr object;
  core::Time decided_at{};
};

/// A read to send after a pause: (workload, which of its unsettled writes).
struct DelayedRead {
  std::string key;
  int what = 0;
  std::chrono::milliseconds after{0};
};

/// What the actor carries out after a call.
struct WriteEffects {
  std::vector<PlannedWrite> writes;
  std::vector<DelayedRead> delayed_reads;
  std::vector<Landed> landed;
  /// An admission was rolled back: its quota is free again, a round can use it.
  bool dirty = false;
  /// An explanation was deferred by the pacer: look again at the next status publish.
  bool publish = false;

  bool empty() const { return writes.empty() && delayed_reads.empty() && landed.empty() && !dirty && !publish; }
};

class TreeWrites {
 public:
  /// `engine` must outlive this; `tree` names the tree in logs.
  TreeWrites(core::Engine& engine, std::string tree, std::chrono::milliseconds explanation_interval);

  // -- the stored versions writes are computed from ----------------------------------

  /// The workload's stored version changed (the engine has applied it): the writes that
  /// waited for a newer version are computed on it.
  WriteEffects on_version(const std::string& key, CachedWorkload version, core::Time now);
  /// The workload is gone: nothing of it is written or waited for any more.
  void forget(const std::string& key);
  const CachedWorkload* cached(std::string_view key) const;
  std::size_t cached_count() const { return workloads_.size(); }

  // -- decisions into writes ---------------------------------------------------------

  /// A round's decisions (or those the engine made applying a batch) as writes.
  WriteEffects plan(core::Decisions decisions, core::Time now);
  /// Explanations the pacer deferred whose time has come, from the engine's view now.
  WriteEffects due_explanations(core::Time now);
  /// A delayed read-back's time came (see WriteEffects::delayed_reads).
  WriteEffects read_due(const std::string& key, int what);

  // -- outcomes ----------------------------------------------------------------------

  WriteEffects on_outcome(std::uint64_t ticket, const messages::WriteOutcome& outcome, core::Time now);

  // -- introspection -----------------------------------------------------------------

  std::size_t admissions_in_flight() const { return writing_admissions_.size(); }
  /// Admissions decided but not written yet: they wait for preemptions to land.
  std::size_t admissions_held() const { return held_admissions_.size(); }
  std::size_t unsettled() const { return unsettled_.size(); }
  std::size_t deferred_explanations() const { return pacer_.deferred(); }
  std::uint64_t rolled_back() const { return rolled_back_; }
  std::uint64_t read_backs() const { return read_backs_; }

 private:
  /// The version a write was computed from, as its answer handler keeps it: packed, since
  /// writes can wait for the API budget by the thousand (a decoded copy each was most of
  /// the heap at scale, see docs/performance.md).
  struct WrittenOn {
    messages::PackedPtr packed;
    std::string resource_version;
  };
  struct AdmissionWrite {
    core::AdmissionDecision decision;
    WrittenOn on;
    core::Time decided_at{};
    /// Sent again, on the version the lost one was conditional on, because a read still
    /// showed that version: the lost write may yet land, so only a write that cannot land
    /// beside it (same precondition) settles what happened.
    bool fence = false;
  };
  struct EvictionWrite {
    core::EvictionDecision decision;
    WrittenOn on;
  };
  struct CheckWrite {
    core::AdmissionCheckDecision decision;
    WrittenOn on;
    core::Time decided_at{};
  };
  struct ExplanationWrite {
    std::string key;
    std::string based_on;
  };
  struct ReadBack {
    std::string key;
    int what = 0;
  };
  using Outstanding = std::variant<AdmissionWrite, EvictionWrite, CheckWrite, ExplanationWrite, ReadBack>;

  /// A status write that did not settle: its answer was lost, so it may have landed, or
  /// it was refused in a way no newer version will retry (a 429, a 5xx). Kept until a
  /// read of the workload says what happened; an admission's quota stays held till then.
  /// Conflict: a write refused with 409 on the very version it was computed from waits
  /// for the newer version the refusal promises; if none arrived after a pause, a read
  /// says whether one exists (see check_conflict).
  struct Unsettled {
    enum What : int { Admission = 0, Eviction = 1, Checks = 2, Conflict = 3 };
    What what = Admission;
    std::string based_on;  ///< the resourceVersion the write was conditional on
    AdmissionWrite admission;             ///< Admission
    core::EvictionDecision eviction;      ///< Eviction
    CheckWrite checks;                    ///< Checks
    std::uint32_t reads = 0;  ///< reads that failed so far (the next one waits longer)
    bool reading = false;
  };

  messages::ObjectPtr unpacked(const std::string& key, const messages::PackedPtr& packed) const;
  messages::ObjectPtr unpacked(const std::string& key) const;
  std::string_view cached_version(std::string_view key) const;
  bool holds_quota(std::string_view key) const;
  WrittenOn written_on(const messages::ObjectPtr& object, bool is_cached_version) const;

  /// Queues a Workload status patch, conditional on the cached version.
  void write_status(messages::WriteIntent intent, const std::string& key, json::value patch, Outstanding context,
                    WriteEffects& fx);
  void write_eviction(core::EvictionDecision ev, core::Time now, WriteEffects& fx);
  void write_check_decision(const core::AdmissionCheckDecision& d, core::Time now, WriteEffects& fx);
  void write_explanation(const std::string& key, json::value patch, core::Time now, WriteEffects& fx);
  void rewrite_explanation(const std::string& key, core::Time now, WriteEffects& fx);
  void evict_on_newer_version(const core::EvictionDecision& ev, std::string_view based_on, core::Time now,
                              WriteEffects& fx);
  void roll_back_admission(const std::string& key, bool hold, WriteEffects& fx);
  void fence_admission(const std::string& key, Unsettled& u, WriteEffects& fx);
  void read_back(const std::string& key, Unsettled u, WriteEffects& fx);
  void check_conflict(const std::string& key, std::string_view based_on, WriteEffects& fx);
  void after_version(const std::string& key, bool holds, core::Time now, WriteEffects& fx);
  void send_read(const std::string& key, int what, WriteEffects& fx);
  void settle(const std::string& key, Unsettled& u, const messages::ObjectPtr& read, core::Time now,
              WriteEffects& fx);

  void admission_done(AdmissionWrite w, const messages::WriteOutcome& o, WriteEffects& fx);
  void eviction_done(EvictionWrite w, const messages::WriteOutcome& o, core::Time now, WriteEffects& fx);
  void check_done(CheckWrite w, const messages::WriteOutcome& o, WriteEffects& fx);
  void explanation_done(const ExplanationWrite& w, const messages::WriteOutcome& o, core::Time now,
                        WriteEffects& fx);
  void read_done(const ReadBack& r, const messages::WriteOutcome& o, core::Time now, WriteEffects& fx);
  void write_admission(core::AdmissionDecision a, const core::PendingDecision* requeued, core::Time decided_at,
                       WriteEffects& fx);
  /// A preemption's eviction is known to have landed, or no longer needs to.
  void preemption_settled(const std::string& key);
  /// Writes the held admissions once no preemption of this tree is unlanded.
  void release_held_admissions(WriteEffects& fx);

  core::Engine& engine_;
  std::string tree_;
  std::unordered_map<std::string, CachedWorkload> workloads_;  ///< latest stored version per workload key
  std::set<std::string, std::less<>> writing_admissions_;
  /// Workloads whose admission was refused (409) on the version cached: the engine holds
  /// them out of rounds until a version is applied to it.
  std::set<std::string, std::less<>> held_;
  /// Workloads whose explanation must be written again from the engine's view once their
  /// newer version arrives (a refused or overtaken explanation, one held back while the
  /// workload still held quota).
  std::set<std::string, std::less<>> recheck_pending_;
  /// Workloads with an explanation write outstanding -> whether a newer explanation was
  /// decided meanwhile. One write per workload at a time: while the budget is short the
  /// engine explains faster than the writer writes.
  std::unordered_map<std::string, bool> pending_writes_;
  ExplanationPacer pacer_;
  /// Evictions not written yet: refused (409: the object changed since the patch was
  /// computed) or held back while the workload's admission is being written. Each is
  /// written on the newer object when it arrives, if it still holds quota.
  std::map<std::string, core::EvictionDecision, std::less<>> recheck_evictions_;
  std::map<std::pair<std::string, int>, Unsettled> unsettled_;
  /// Victims of preemptions decided here whose Evicted condition is not known to have
  /// landed. The engine counts their quota as free for the entries of a cycle after
  /// their preemptor (Kueue's fit after preemptions); an admission landing before the
  /// eviction would show the cohort over its quota with no victim to explain it (and,
  /// if the eviction never landed, would stay so). Admissions that fit only in such
  /// quota (AdmissionDecision::after_preemptions) decided while any is unlanded are held
  /// until all have landed.
  std::set<std::string, std::less<>> unlanded_preemptions_;
  struct HeldAdmission {
    core::AdmissionDecision decision;
    core::Time decided_at{};
    std::optional<core::PendingDecision> requeued;  ///< a Requeued condition of the same round
  };
  std::vector<HeldAdmission> held_admissions_;
  std::unordered_map<std::uint64_t, Outstanding> outstanding_;
  std::uint64_t next_ticket_ = 1;
  std::uint64_t rolled_back_ = 0;
  std::uint64_t read_backs_ = 0;
};

}  // namespace kueuepp::actors
