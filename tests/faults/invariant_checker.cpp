#include "tests/faults/invariant_checker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/quantity.hpp"

namespace kueuepp::faults {

using kube::client::Object;

namespace {

std::int64_t milli_of(const json::value* v) {
  if (v == nullptr) return 0;
  if (v->is_string()) {
    const json::string& text = v->get_string();
    auto q = core::Quantity::parse(std::string_view(text.data(), text.size()));
    return q ? q->milli() : 0;
  }
  if (v->is_int64()) return v->get_int64() * 1000;
  if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64()) * 1000;
  if (v->is_double()) return static_cast<std::int64_t>(v->get_double() * 1000);
  return 0;
}

std::int64_t count_of(const json::value* v, std::int64_t fallback) {
  if (v == nullptr || !v->is_number()) return fallback;
  return v->to_number<std::int64_t>();
}

const json::array* array_at(const json::value* v) { return v != nullptr && v->is_array() ? &v->get_array() : nullptr; }

/// What one pod of a pod set asks for (its containers' requests summed).
std::int64_t pod_request_milli(const json::value& pod_set, const std::string& resource) {
  std::int64_t sum = 0;
  const json::value* spec = json::find(pod_set, "template");
  spec = spec ? json::find(*spec, "spec") : nullptr;
  const json::array* containers = spec ? array_at(json::find(*spec, "containers")) : nullptr;
  if (containers == nullptr) return 0;
  for (const auto& c : *containers) {
    const json::value* res = json::find(c, "resources");
    const json::value* req = res ? json::find(*res, "requests") : nullptr;
    if (req != nullptr) sum += milli_of(json::find(*req, resource));
  }
  return sum;
}

bool is_finished_job(const Object& job) { return job.condition_true("Complete") || job.condition_true("Failed"); }

/// The Job's uid a Workload belongs to, if a Job owns it.
std::optional<std::string> owner_job_uid(const Object& wl) {
  for (const auto& ref : wl.owner_references()) {
    if (ref.kind == "Job") return ref.uid;
  }
  return std::nullopt;
}

std::string cond(const Object& o, std::string_view type) {
  auto c = o.condition(type);
  if (!c) return "-";
  return c->status + (c->reason.empty() ? "" : "/" + c->reason);
}

/// A Workload in a few words: name, queue, and the conditions that say where it is.
std::string describe(const Object& wl) {
  std::string_view cq = wl.string_at({"status", "admission", "clusterQueue"});
  return fmt::format("{} (rv {}, admission {}, QuotaReserved {}, Admitted {}, Evicted {}, Finished {}{})", wl.name(),
                     wl.resource_version(), cq.empty() ? "-" : cq, cond(wl, "QuotaReserved"), cond(wl, "Admitted"),
                     cond(wl, "Evicted"), cond(wl, "Finished"), wl.being_deleted() ? ", being deleted" : "");
}

}  // namespace

std::int64_t workload_usage_milli(const Object& workload, const std::string& resource) {
  const json::array* pod_sets = array_at(workload.find({"spec", "podSets"}));
  const json::array* assignments = array_at(workload.find({"status", "admission", "podSetAssignments"}));
  std::int64_t sum = 0;
  if (assignments != nullptr) {
    for (const auto& a : *assignments) {
      const json::value* usage = json::find(a, "resourceUsage");
      if (usage != nullptr && usage->is_object()) {
        sum += milli_of(json::find(*usage, resource));
        continue;
      }
      // No usage recorded: the pod set's requests times the count admitted.
      std::string_view name = json::get_string(a, "name");
      if (pod_sets == nullptr) continue;
      for (const auto& ps : *pod_sets) {
        if (json::get_string(ps, "name") != name) continue;
        sum += pod_request_milli(ps, resource) * count_of(json::find(a, "count"), count_of(json::find(ps, "count"), 1));
      }
    }
    return sum;
  }
  return requested_milli(workload, resource);
}

std::int64_t requested_milli(const Object& workload, const std::string& resource) {
  const json::array* pod_sets = array_at(workload.find({"spec", "podSets"}));
  std::int64_t sum = 0;
  if (pod_sets == nullptr) return 0;
  for (const auto& ps : *pod_sets) sum += pod_request_milli(ps, resource) * count_of(json::find(ps, "count"), 1);
  return sum;
}

std::string preemptor_uid(const Object& workload) {
  for (std::string_view type : {"Preempted", "Evicted"}) {
    auto c = workload.condition(type);
    if (!c || c->status != "True") continue;
    auto at = c->message.find("(UID: ");
    if (at == std::string::npos) continue;
    at += 6;
    auto end = c->message.find_first_of(",)", at);
    if (end != std::string::npos) return c->message.substr(at, end - at);
  }
  return {};
}

bool holds_quota(const Object& workload) {
  const json::value* admission = workload.find({"status", "admission"});
  return admission != nullptr && admission->is_object() && workload.condition_true("QuotaReserved") &&
         !workload.condition_true("Finished");
}

std::vector<std::string> starts_without_quota(std::vector<ObjectVersion> versions) {
  std::stable_sort(versions.begin(), versions.end(),
                   [](const ObjectVersion& a, const ObjectVersion& b) { return a.rv < b.rv; });
  struct WorkloadNow {
    std::string job_uid;
    bool holds = false;
    std::string description;
  };
  std::map<std::string, WorkloadNow> workloads;    // uid -> as of the version being judged
  std::map<std::string, bool> suspended;            // Job uid -> spec.suspend at its last version
  std::vector<std::string> out;
  for (const auto& v : versions) {
    const Object& o = v.object;
    std::string uid(o.uid());
    if (o.kind() == "Workload") {
      auto job = owner_job_uid(o);
      if (v.deleted || !job) {
        workloads.erase(uid);
      } else {
        workloads[uid] = WorkloadNow{*job, holds_quota(o), describe(o)};
      }
      continue;
    }
    if (o.kind() != "Job") continue;
    if (v.deleted) {
      suspended.erase(uid);
      continue;
    }
    const bool now = o.bool_at({"spec", "suspend"}).value_or(false);
    auto [it, first] = suspended.try_emplace(uid, now);
    const bool started = !first && it->second && !now;
    it->second = now;
    if (!started) continue;
    std::string mine;
    bool held = false;
    for (const auto& [wuid, w] : workloads) {
      if (w.job_uid != uid) continue;
      held = held || w.holds;
      mine += "\n    " + w.description;
    }
    if (!held) {
      out.push_back(fmt::format("Job {} started at rv {} while no Workload of it held quota:{}", o.name(), v.rv,
                                mine.empty() ? std::string(" none") : mine));
    }
  }
  return out;
}

InvariantChecker::InvariantChecker(std::vector<QueueQuota> queues, Options options, Clock::time_point start)
    : options_(std::move(options)), start_(start) {
  for (auto& q : queues) {
    std::string name = q.name;
    queues_.emplace(std::move(name), std::move(q));
  }
}

std::int64_t InvariantChecker::cohort_quota(const std::string& cohort) const {
  std::int64_t sum = 0;
  for (const auto& [name, q] : queues_) {
    if (q.cohort == cohort) sum += q.nominal_milli;
  }
  return sum;
}

std::int64_t InvariantChecker::queue_limit(const std::string& queue) const {
  auto it = queues_.find(queue);
  if (it == queues_.end()) return 0;
  const QueueQuota& q = it->second;
  if (q.cohort.empty()) return q.nominal_milli;
  std::int64_t lendable = 0;  // what the others of the cohort can lend
  for (const auto& [name, other] : queues_) {
    if (name != queue && other.cohort == q.cohort) lendable += other.lending_limit_milli.value_or(other.nominal_milli);
  }
  if (q.borrowing_limit_milli) lendable = std::min(lendable, *q.borrowing_limit_milli);
  return q.nominal_milli + lendable;
}

void InvariantChecker::record(std::string invariant, std::string what, Clock::time_point now) {
  violations_.push_back(Violation{std::chrono::duration_cast<std::chrono::milliseconds>(now - start_),
                                  std::move(invariant), std::move(what)});
}

void InvariantChecker::lasting(const std::string& key, const std::string& invariant, const std::string& what,
                               Clock::time_point now, std::set<std::string>& seen_now) {
  seen_now.insert(key);
  auto [it, first] = open_.try_emplace(key, now);
  if (reported_.count(key) != 0 || now - it->second < options_.grace) return;
  reported_.insert(key);
  record(invariant,
         fmt::format("{} (for {} ms)", what,
                     std::chrono::duration_cast<std::chrono::milliseconds>(now - it->second).count()),
         now);
}

void InvariantChecker::instant(const std::string& key, const std::string& invariant, const std::string& what,
                               Clock::time_point now, std::set<std::string>& seen_now) {
  seen_now.insert(key);
  open_.try_emplace(key, now);
  if (!reported_.insert(key).second) return;
  record(invariant, what, now);
}

std::size_t InvariantChecker::observe(const std::vector<Object>& jobs, const std::vector<Object>& workloads,
                                      Clock::time_point now) {
  const std::size_t before = violations_.size();
  ++snapshots_;

  // -- 1. quota: the holders now, judged once the victim horizon passed ------------------
  QuotaSnapshot snap;
  snap.at = now;
  std::set<std::string> holding;
  for (const auto& wl : workloads) {
    std::string uid(wl.uid());
    requested_[uid] = requested_milli(wl, options_.resource);
    if (!holds_quota(wl)) continue;
    if (holding_.count(uid) == 0) {
      ++admissions_;
      ++episode_[uid];
    }
    const std::uint64_t episode = episode_[uid];
    if (wl.condition_true("Evicted")) victims_.try_emplace({uid, episode}, preemptor_uid(wl));
    snap.holders.push_back(Holder{uid, episode, std::string(wl.string_at({"status", "admission", "clusterQueue"})),
                                  workload_usage_milli(wl, options_.resource), describe(wl)});
    holding.insert(std::move(uid));
  }
  holding_ = std::move(holding);
  unjudged_.push_back(std::move(snap));
  while (!unjudged_.empty() && now - unjudged_.front().at >= options_.victim_horizon) {
    judge_quota(unjudged_.front());
    unjudged_.pop_front();
  }

  // -- 2-4. the Jobs ------------------------------------------------------------------
  std::set<std::string> seen_now;
  check_jobs(jobs, workloads, now, seen_now);
  // Episodes that ended: the next occurrence is a new one.
  for (auto it = open_.begin(); it != open_.end();) {
    if (seen_now.count(it->first) == 0) {
      reported_.erase(it->first);
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  return violations_.size() - before;
}

std::size_t InvariantChecker::finish() {
  const std::size_t before = violations_.size();
  for (const auto& snap : unjudged_) judge_quota(snap);
  unjudged_.clear();
  return violations_.size() - before;
}

void InvariantChecker::judge_quota(const QuotaSnapshot& snap) {
  std::set<std::string> holding;
  for (const auto& h : snap.holders) holding.insert(h.uid);
  auto victim = [&](const Holder& h) -> const std::string* {
    auto v = victims_.find({h.uid, h.episode});
    return v == victims_.end() ? nullptr : &v->second;
  };
  auto list_of = [&](const std::set<std::string>& cqs) {
    std::string out;
    for (const auto& h : snap.holders) {
      if (cqs.count(h.cluster_queue) == 0) continue;
      const std::string* by = victim(h);
      out += fmt::format("\n    {} {}m{}: {}", h.cluster_queue, h.usage,
                         by == nullptr ? "" : by->empty() ? " (evicted)" : " (preempted by " + *by + ")",
                         h.description);
    }
    return out;
  };
  std::set<std::string> over;
  auto report = [&](const std::string& key, std::string what) {
    over.insert(key);
    if (quota_over_.count(key) == 0) record("quota", std::move(what), snap.at);
  };
  // Per ClusterQueue: every holder, and the victims apart. Per cohort: every holder, and
  // what its victims hold beyond what their preemptors, not admitted yet, will take.
  struct Cohort {
    std::int64_t held = 0;
    std::int64_t victims = 0;
    std::set<std::string> preemptors;  ///< not holding: their usage is still to come
    bool unknown_preemptor = false;
    std::set<std::string> queues;
  };
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> per_queue;
  std::map<std::string, Cohort> per_cohort;
  for (const auto& h : snap.holders) {
    auto& [held, victims] = per_queue[h.cluster_queue];
    held += h.usage;
    auto q = queues_.find(h.cluster_queue);
    const std::string* by = victim(h);
    if (by != nullptr) victims += h.usage;
    if (q == queues_.end() || q->second.cohort.empty()) continue;
    Cohort& c = per_cohort[q->second.cohort];
    c.held += h.usage;
    c.queues.insert(h.cluster_queue);
    if (by == nullptr || holding.count(*by) != 0) continue;  // a preemptor admitted: no longer a victim's excuse
    c.victims += h.usage;
    if (by->empty()) {
      c.unknown_preemptor = true;
    } else {
      c.preemptors.insert(*by);
    }
  }
  for (const auto& [cq, used] : per_queue) {
    const auto [held, victims] = used;
    if (queues_.count(cq) == 0) {
      report("unknown:" + cq, fmt::format("Workloads hold quota in unknown ClusterQueue {}", cq));
      continue;
    }
    if (const std::int64_t limit = queue_limit(cq); held - victims > limit) {
      report("cq:" + cq, fmt::format("ClusterQueue {} holds {}m of {} besides preemption victims (limit {}m with "
                                     "what its cohort lends):{}",
                                     cq, held - victims, options_.resource, limit, list_of({cq})));
    }
  }
  for (const auto& [cohort, c] : per_cohort) {
    const std::int64_t quota = cohort_quota(cohort);
    std::int64_t to_come = 0;
    for (const auto& uid : c.preemptors) {
      auto r = requested_.find(uid);
      if (r != requested_.end()) to_come += r->second;
    }
    const std::int64_t excuse = c.unknown_preemptor ? c.victims : std::max<std::int64_t>(0, c.victims - to_come);
    peak_overlap_ = std::max(peak_overlap_, std::min(c.held - quota, excuse));
    if (c.held > quota + excuse) {
      report("cohort:" + cohort,
             fmt::format("cohort {} holds {}m of {} (its quota {}m; {}m held by preemption victims, {}m of it to "
                         "their preemptors):{}",
                         cohort, c.held, options_.resource, quota, c.victims, c.victims - excuse,
                         list_of(c.queues)));
    }
  }
  quota_over_ = std::move(over);
}

void InvariantChecker::check_jobs(const std::vector<Object>& jobs, const std::vector<Object>& workloads,
                                  Clock::time_point now, std::set<std::string>& seen_now) {
  std::map<std::string, std::vector<const Object*>> live;  // job uid -> its Workloads not being deleted
  for (const auto& wl : workloads) {
    auto uid = owner_job_uid(wl);
    if (uid && !wl.being_deleted()) live[*uid].push_back(&wl);
  }
  for (const auto& job : jobs) {
    if (!job.label(options_.job_label)) continue;
    const std::string uid(job.uid());
    const auto& mine = live[uid];
    // -- 2. admitted once -------------------------------------------------------------
    std::vector<const Object*> holding;
    for (const Object* wl : mine) {
      if (holds_quota(*wl)) holding.push_back(wl);
    }
    if (holding.size() > 1) {
      std::string list;
      for (const Object* wl : holding) list += "\n    " + describe(*wl);
      instant("once:" + uid, "once",
              fmt::format("Job {} has {} Workloads holding quota:{}", job.name(), holding.size(), list), now,
              seen_now);
    }
    // -- 3. one Workload per Job ------------------------------------------------------
    if (mine.size() > 1) {
      std::string list;
      for (const Object* wl : mine) list += "\n    " + describe(*wl);
      lasting("duplicates:" + uid, "one-workload",
              fmt::format("Job {} has {} live Workloads:{}", job.name(), mine.size(), list), now, seen_now);
    }
    // -- 4. a running Job is admitted -------------------------------------------------
    const bool suspended = job.bool_at({"spec", "suspend"}).value_or(false);
    if (suspended || is_finished_job(job)) continue;
    const bool admitted = std::any_of(mine.begin(), mine.end(), [](const Object* wl) {
      return holds_quota(*wl) && wl->condition_true("Admitted");
    });
    if (admitted) continue;
    std::string list;
    for (const Object* wl : mine) list += "\n    " + describe(*wl);
    lasting("suspension:" + uid, "suspension",
            fmt::format("Job {} (rv {}, active {}) runs without an admitted Workload:{}", job.name(),
                        job.resource_version(), job.int_at({"status", "active"}).value_or(0),
                        list.empty() ? std::string(" none") : list),
            now, seen_now);
  }
}

std::size_t InvariantChecker::settled(const std::vector<Object>& jobs, const std::vector<Object>& workloads,
                                      Clock::time_point now) {
  const std::size_t before = violations_.size();
  std::map<std::string, std::vector<const Object*>> live;
  for (const auto& wl : workloads) {
    auto uid = owner_job_uid(wl);
    if (uid && !wl.being_deleted()) live[*uid].push_back(&wl);
  }
  for (const auto& job : jobs) {
    if (!job.label(options_.job_label)) continue;
    const auto& mine = live[std::string(job.uid())];
    if (mine.size() == 1) continue;
    std::string list;
    for (const Object* wl : mine) list += "\n    " + describe(*wl);
    record("one-workload", fmt::format("Job {} has {} live Workloads once settled{}", job.name(), mine.size(), list),
           now);
  }
  return violations_.size() - before;
}

}  // namespace kueuepp::faults
