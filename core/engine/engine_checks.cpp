// Engine: admission checks — the part of Kueue's Workload controller that keeps the
// status.admissionChecks of a workload holding quota in step with its ClusterQueue and
// acts on their states (../shared/reference/kueue-semantics.md section 2.9):
//  - the list holds exactly the checks the ClusterQueue's admissionChecksStrategy
//    requires for the flavors assigned (an empty onFlavors means every flavor); new
//    entries start Pending;
//  - every check Ready: Admitted=True (the Job starts);
//  - a check Rejected: DeactivationTarget (AdmissionCheck), then spec.active=false and an
//    eviction that is not requeued;
//  - a check in Retry: evicted (AdmissionCheck), requeued once requeueAfterSeconds have
//    passed; the checks reset to Pending on the next reservation.
// A check added to the ClusterQueue of an admitted workload is listed (Pending) but does
// not take the admission back.

#include <algorithm>

#include "core/engine/engine.hpp"

namespace kueuepp::core {
namespace {

const std::vector<AdmissionCheckState>& no_checks() {
  static const std::vector<AdmissionCheckState> none;
  return none;
}

const std::vector<AdmissionCheckState>& checks_of(const WorkloadRecord& rec) {
  return rec.extras ? rec.extras->checks : no_checks();
}

bool all_ready(const std::vector<AdmissionCheckState>& checks) {
  return std::all_of(checks.begin(), checks.end(),
                     [](const AdmissionCheckState& c) { return c.state == CheckState::Ready; });
}

/// Kueue's buildAdmissionChecksMessage: `AdmissionCheck(s) in <state> state: "a" (msg); "b"`.
std::string checks_message(std::vector<const AdmissionCheckState*> checks, std::string_view state) {
  std::sort(checks.begin(), checks.end(), [](auto* a, auto* b) { return a->name < b->name; });
  std::string out = checks.size() > 1 ? "AdmissionChecks" : "AdmissionCheck";
  out += " in " + std::string(state) + " state: ";
  for (std::size_t i = 0; i < checks.size(); ++i) {
    if (i > 0) out += "; ";
    out += "\"" + checks[i]->name + "\"";
    if (!checks[i]->message.empty()) out += " (" + checks[i]->message + ")";
  }
  return out;
}

}  // namespace

std::vector<std::string> Engine::required_checks(const WorkloadRecord& rec) const {
  std::vector<std::string> out;
  if (rec.cq < 0) return out;
  const auto& cq = cqs_[static_cast<std::size_t>(rec.cq)];
  for (const auto& ref : cq.spec.admission_checks) {
    bool applies = ref.on_flavors.empty();
    for (const auto& ps : rec.admission) {
      for (const auto& [r, f] : ps.flavors) {
        (void)r;
        const std::string& flavor = flavors_.name(f);
        if (std::find(ref.on_flavors.begin(), ref.on_flavors.end(), flavor) != ref.on_flavors.end()) applies = true;
      }
    }
    if (applies) out.push_back(ref.name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void Engine::sync_checks(WorkloadRecord& rec, const std::vector<std::string>& required) {
  if (required.empty() && !rec.extras) return;
  std::vector<AdmissionCheckState> synced;
  for (const auto& name : required) {
    const auto& current = checks_of(rec);
    auto it = std::find_if(current.begin(), current.end(), [&](const AdmissionCheckState& c) { return c.name == name; });
    if (it != current.end()) {
      synced.push_back(*it);
    } else {
      AdmissionCheckState fresh;
      fresh.name = name;
      fresh.last_transition = now_;
      synced.push_back(std::move(fresh));
    }
  }
  rec.extra().checks = std::move(synced);
}

bool Engine::checks_at_reservation(WorkloadRecord& rec, std::vector<std::string>& required) {
  required = required_checks(rec);
  sync_checks(rec, required);
  if (rec.extras) rec.extras->deactivation_target = false;
  return all_ready(checks_of(rec));
}

void Engine::reset_checks_after_eviction(WorkloadRecord& rec) {
  if (!rec.extras) return;
  for (auto& c : rec.extras->checks) {
    if (c.state == CheckState::Pending) continue;
    if (c.state == CheckState::Retry) ++c.retry_count;
    c.message = "Reset to Pending after eviction. Previously: " +
                std::string(c.state == CheckState::Ready ? "Ready" : c.state == CheckState::Retry ? "Retry" : "Rejected");
    c.state = CheckState::Pending;
    c.last_transition = now_;
  }
}

void Engine::load_checks(WorkloadRecord& rec, const Workload& wl) {
  if (wl.admission_checks.empty() && !rec.extras) return;
  auto& extra = rec.extra();
  extra.checks = wl.admission_checks;
  extra.deactivation_target = wl.condition_true("DeactivationTarget");
}

bool Engine::check_review_can_act(const WorkloadRecord& rec) const {
  // review_admission_checks below starts here: whatever this refuses, it leaves alone.
  if (!rec.reserved || rec.finished || rec.cq < 0) return false;
  const auto& cq = cqs_[static_cast<std::size_t>(rec.cq)];
  if (!cq.spec.admission_checks.empty() || !checks_of(rec).empty()) return true;
  return !rec.admitted && !rec.evicted;  // admitted at once: no check to wait for
}

void Engine::review_admission_checks(WorkloadRecord& rec) {
  if (!check_review_can_act(rec)) return;
  const auto& cq = cqs_[static_cast<std::size_t>(rec.cq)];
  const std::string& cq_name = cq.spec.name;
  auto decision = [&](AdmissionCheckDecision::Kind kind) {
    AdmissionCheckDecision d;
    d.kind = kind;
    d.workload = rec.key;
    d.cluster_queue = cq_name;
    d.at = now_;
    return d;
  };

  // The list follows the ClusterQueue (Kueue's reconcileSyncAdmissionChecks, which
  // returns after its write: the states are acted on in the next version).
  if (!cq.spec.admission_checks.empty() || !checks_of(rec).empty()) {
    std::vector<std::string> required = required_checks(rec);
    std::vector<std::string> listed;
    for (const auto& c : checks_of(rec)) listed.push_back(c.name);
    std::sort(listed.begin(), listed.end());
    if (listed != required) {
      sync_checks(rec, required);
      auto d = decision(AdmissionCheckDecision::Kind::SyncChecks);
      d.checks = std::move(required);
      outbox_.checks.push_back(std::move(d));
      return;
    }
  }

  const auto& checks = checks_of(rec);
  if (!rec.admitted && !rec.evicted && all_ready(checks)) {
    // Kueue's SyncAdmittedCondition: reservation plus every check Ready.
    rec.admitted = true;
    retally(rec);
    outbox_.checks.push_back(decision(AdmissionCheckDecision::Kind::Admit));
    return;
  }
  // Kueue's reconcileCheckBasedEviction: only for an active workload not evicted yet.
  if (rec.evicted || !rec.active || checks.empty()) return;
  std::vector<const AdmissionCheckState*> rejected;
  std::vector<const AdmissionCheckState*> retry;
  for (const auto& c : checks) {
    if (c.state == CheckState::Rejected) rejected.push_back(&c);
    if (c.state == CheckState::Retry) retry.push_back(&c);
  }
  if (!rejected.empty()) {
    // Once the object shows DeactivationTarget, the deactivation is under way.
    if (rec.extra().deactivation_target) return;
    auto d = decision(AdmissionCheckDecision::Kind::Deactivate);
    d.message = checks_message(std::move(rejected), "Rejected");
    outbox_.checks.push_back(std::move(d));
    return;
  }
  if (retry.empty()) return;
  // Kueue's GetMaxRetryTime: the latest lastTransitionTime + requeueAfterSeconds.
  std::optional<Time> requeue_at;
  for (const auto* c : retry) {
    if (!c->requeue_after_seconds || c->last_transition == Time{}) continue;
    Time at = c->last_transition + std::chrono::seconds(*c->requeue_after_seconds);
    if (!requeue_at || *requeue_at < at) requeue_at = at;
  }
  if (requeue_at && *requeue_at <= now_) requeue_at.reset();
  evict(rec, "AdmissionCheck", "Evicted due to " + checks_message(std::move(retry), "Retry"));
  rec.evicted_by_timeout_at = now_;  // queue order: the Evicted(AdmissionCheck) time
  outbox_.evictions.back().requeue_at = requeue_at;
  rec.extra().check_requeue_at = requeue_at;
}

void Engine::review_checks_of_cluster_queues() {
  for (auto& w : workloads_) {
    if (!w || !w->reserved || w->finished || w->cq < 0) continue;
    const auto& cq = cqs_[static_cast<std::size_t>(w->cq)];
    if (cq.spec.admission_checks.empty() && checks_of(*w).empty()) continue;
    checks_due_.insert(w->id);
  }
}

void Engine::review_due_checks() {
  if (checks_due_.empty()) return;
  std::vector<int> due(checks_due_.begin(), checks_due_.end());
  checks_due_.clear();
  std::sort(due.begin(), due.end());  // deterministic decision order
  for (int id : due) {
    if (id < 0 || static_cast<std::size_t>(id) >= workloads_.size() || !workloads_[static_cast<std::size_t>(id)]) continue;
    review_admission_checks(*workloads_[static_cast<std::size_t>(id)]);
  }
}

Status Engine::deactivate(std::string_view key, std::string_view cause, std::string_view message) {
  ensure_topology();
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return fail("workload " + std::string(key) + " not found");
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(it->second)];
  rec.active = false;
  if (rec.reserved) {
    if (!rec.evicted) {
      std::string reason = "Deactivated";
      std::string text = "The workload is deactivated";
      if (!cause.empty()) {
        reason += "DueTo" + std::string(cause);
        text += " due to " + std::string(message);
      }
      evict(rec, std::move(reason), std::move(text));
    }
    return {};
  }
  route(rec);
  return {};
}

}  // namespace kueuepp::core
