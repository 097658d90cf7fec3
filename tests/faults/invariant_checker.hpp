#pragma once

// What the fault end-to-end tests check, from the API objects alone: snapshots of the
// Jobs and Workloads of one namespace (as a client sees them, never the controller's
// memory) are judged against the queues' quotas, and the violations are recorded with
// when they were seen. Pure logic, fed by fault_e2e_test.cpp's poller, so that every
// rule is tested on snapshots made up by hand (invariant_checker_test.cpp).
//
// The invariants:
//   1. quota: the Workloads holding quota (status.admission set, QuotaReserved=True, not
//      Finished) of a cohort's ClusterQueues use at most the cohort's nominal quota, and
//      those of one ClusterQueue at most its nominal quota plus what the cohort can lend.
//      Except while preemption victims stop: Kueue's scheduler counts the workloads it
//      preempts as gone for the entries after the preemptor (its `fits` removes them
//      and adds the preemptor's usage), so until a victim's quota is released a cohort
//      may hold its quota plus what its victims hold beyond what their preemptors (not
//      admitted yet) will take. A victim is a Workload seen Evicted while it still held
//      quota, in the same admission, its preemptor named by its Preempted condition; the
//      eviction may become visible late (a write refused and written again), so a
//      snapshot's quota is judged once `victim_horizon` has passed (or at finish()).
//   2. once: at most one Workload of a Job (by owner uid, not being deleted) holds quota;
//   3. one Workload per Job: a Job with several live Workloads for longer than a grace
//      period, and, once settled, a Job without exactly one (settled());
//   4. suspension: a Job running (not suspended, not finished) has its Workload admitted
//      (Admitted=True and holding quota); the stop after an eviction is asynchronous, so
//      only a mismatch that lasts longer than a grace period counts.
//   5. starts (starts_without_quota, on watched versions rather than polls): a Job is
//      started only while one of its Workloads holds quota, in the API server's order.
//      Exact, with no grace: the quota of an admitted Workload is released (QuotaReserved
//      set False) by the controller only after it stopped the Job, so a start that lands
//      after that was decided on a version older than one the controller had written.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kube/client/object.hpp"

namespace kueuepp::faults {

/// One ClusterQueue's quota of the one resource checked (cpu), in milli-units.
struct QueueQuota {
  std::string name;
  std::string cohort;  ///< empty: no cohort
  std::int64_t nominal_milli = 0;
  std::optional<std::int64_t> borrowing_limit_milli;
  std::optional<std::int64_t> lending_limit_milli;
};

struct Violation {
  std::chrono::milliseconds at{0};  ///< since the checker started
  std::string invariant;            ///< "quota", "once", "one-workload", "suspension", "start", "settled"
  std::string what;
};

/// A Workload's use of the checked resource, from its admission (podSetAssignments'
/// resourceUsage), else from its pod sets' requests times their counts.
std::int64_t workload_usage_milli(const kube::client::Object& workload, const std::string& resource);
/// What its pod sets ask for (requests times counts), whether admitted or not.
std::int64_t requested_milli(const kube::client::Object& workload, const std::string& resource);
/// status.admission set, QuotaReserved=True and not Finished.
bool holds_quota(const kube::client::Object& workload);
/// The uid of the workload a Workload was preempted for, from its Preempted (or
/// Evicted) condition's message ("... (UID: <uid>, JobUID: ...) ..."); empty if none.
std::string preemptor_uid(const kube::client::Object& workload);

/// One version of a Job or Workload as a watch straight to the server delivered it.
struct ObjectVersion {
  /// Its resourceVersion as a number: the embedded API server counts one sequence for
  /// every object, so that versions of different objects are ordered by it.
  std::uint64_t rv = 0;
  bool deleted = false;
  kube::client::Object object;
};

/// Invariant 5: every Job start (spec.suspend from true to false) that lands while none
/// of the Job's Workloads holds quota, one line each, judged on `versions` (Jobs and
/// Workloads, any order) in resourceVersion order.
std::vector<std::string> starts_without_quota(std::vector<ObjectVersion> versions);

class InvariantChecker {
 public:
  using Clock = std::chrono::steady_clock;

  struct Options {
    std::string resource = "cpu";
    /// Only Jobs with this label are the controller's (the queue-name label).
    std::string job_label = "kueue.x-k8s.io/queue-name";
    /// How long a running Job may lack an admission before it counts (the stop after an
    /// eviction is asynchronous), and a Job keep several live Workloads.
    std::chrono::milliseconds grace{3000};
    /// How long after a snapshot its quota is judged: an eviction decided before it may
    /// show only that much later.
    std::chrono::milliseconds victim_horizon{10000};
  };

  InvariantChecker(std::vector<QueueQuota> queues, Options options, Clock::time_point start = Clock::now());

  /// Takes one snapshot taken at `now`: judges the Jobs at once, and the quota of the
  /// snapshots older than the victim horizon. Returns the violations it recorded.
  std::size_t observe(const std::vector<kube::client::Object>& jobs,
                      const std::vector<kube::client::Object>& workloads, Clock::time_point now = Clock::now());
  /// Judges the quota of every snapshot not judged yet. Returns the violations recorded.
  std::size_t finish();
  /// The end: every labelled Job has exactly one live Workload. Returns the violations
  /// it recorded.
  std::size_t settled(const std::vector<kube::client::Object>& jobs, const std::vector<kube::client::Object>& workloads,
                      Clock::time_point now = Clock::now());
  /// Records a violation found elsewhere (the test's end checks).
  void record(std::string invariant, std::string what, Clock::time_point now = Clock::now());

  const std::vector<Violation>& violations() const { return violations_; }
  /// Admissions seen: a Workload seen holding quota after being seen without (or first
  /// seen holding it). Polling misses the shortest ones.
  std::uint64_t admissions() const { return admissions_; }
  std::uint64_t snapshots() const { return snapshots_; }
  /// The most any cohort held beyond its quota while victims stopped (see above).
  std::int64_t peak_overlap_milli() const { return peak_overlap_; }

  /// The quota a cohort's ClusterQueues share, and the most one ClusterQueue may hold.
  std::int64_t cohort_quota(const std::string& cohort) const;
  std::int64_t queue_limit(const std::string& queue) const;

 private:
  /// A Workload holding quota in a snapshot, in its `episode`-th admission.
  struct Holder {
    std::string uid;
    std::uint64_t episode = 0;
    std::string cluster_queue;
    std::int64_t usage = 0;
    std::string description;
  };
  struct QuotaSnapshot {
    Clock::time_point at;
    std::vector<Holder> holders;
  };

  void judge_quota(const QuotaSnapshot& snapshot);
  void check_jobs(const std::vector<kube::client::Object>& jobs, const std::vector<kube::client::Object>& workloads,
                  Clock::time_point now, std::set<std::string>& seen_now);
  /// A condition that must not last: recorded once when it has lasted `grace`, again
  /// only after it cleared. `key` names the episode.
  void lasting(const std::string& key, const std::string& invariant, const std::string& what, Clock::time_point now,
               std::set<std::string>& seen_now);
  /// A condition that must never hold: recorded once per episode.
  void instant(const std::string& key, const std::string& invariant, const std::string& what, Clock::time_point now,
               std::set<std::string>& seen_now);

  std::map<std::string, QueueQuota> queues_;
  Options options_;
  Clock::time_point start_;
  std::vector<Violation> violations_;
  /// Episodes of the Job invariants open at the last snapshot: key -> when first seen.
  std::map<std::string, Clock::time_point> open_;
  std::set<std::string> reported_;
  /// Quota: the snapshots not judged yet, the admission episode of every Workload, the
  /// (uid, episode) seen evicted while holding, the quota keys over at the last judged one.
  std::deque<QuotaSnapshot> unjudged_;
  std::map<std::string, std::uint64_t> episode_;
  std::set<std::string> holding_;  ///< Workload uids holding quota at the last snapshot
  /// (uid, episode) seen evicted while holding -> its preemptor's uid (empty: unknown).
  std::map<std::pair<std::string, std::uint64_t>, std::string> victims_;
  std::map<std::string, std::int64_t> requested_;  ///< uid -> what its pod sets ask for
  std::set<std::string> quota_over_;
  std::uint64_t admissions_ = 0;
  std::uint64_t snapshots_ = 0;
  std::int64_t peak_overlap_ = 0;
};

}  // namespace kueuepp::faults
