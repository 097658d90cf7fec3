#include "actors/tree_writes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/engine/engine.hpp"
#include "kube/jobs/workload_status.hpp"
#include "kube/objects/decoders.hpp"

namespace kueuepp::actors {

using messages::ObjectPtr;
using messages::PackedPtr;
using messages::WriteIntent;
using messages::WriteOutcome;

namespace {

void split_key(const std::string& key, std::string& ns, std::string& name) {
  auto slash = key.find('/');
  ns = key.substr(0, slash);
  name = slash == std::string::npos ? std::string() : key.substr(slash + 1);
}

std::string_view why(const WriteOutcome& o) { return o.reason.empty() ? std::string_view(o.message) : o.reason; }

/// How long a write refused with 409 waits for the newer version before the workload is
/// read: from a real API server that version follows the refusal within milliseconds,
/// and the read is never sent.
constexpr std::chrono::milliseconds kConflictCheckPause{1000};

/// The workload as a pending decision of the same round leaves it (Requeued=True after a
/// queue restart): an admission in that round is written on top of it, in one write,
/// because a second merge patch of the conditions list would undo the first.
ObjectPtr with_requeued(const ObjectPtr& object, const core::PendingDecision* requeued, core::Time now) {
  if (requeued == nullptr) return object;
  core::PendingDecision only = *requeued;
  only.reason.clear();
  auto patch = kube::jobs::pending_patch(*object, only, now);
  if (!patch) return object;
  auto copy = std::make_shared<kube::client::Object>(*object);
  auto& root = copy->json().as_object();
  if (!root["status"].is_object()) root["status"] = json::object{};
  root["status"].as_object()["conditions"] = patch->at("status").at("conditions");
  return copy;
}

}  // namespace

TreeWrites::TreeWrites(core::Engine& engine, std::string tree, std::chrono::milliseconds explanation_interval)
    : engine_(engine), tree_(std::move(tree)), pacer_(explanation_interval) {}

// -- the stored versions ----------------------------------------------------------------

const CachedWorkload* TreeWrites::cached(std::string_view key) const {
  auto it = workloads_.find(std::string(key));
  return it == workloads_.end() ? nullptr : &it->second;
}

std::string_view TreeWrites::cached_version(std::string_view key) const {
  const CachedWorkload* c = cached(key);
  return c == nullptr ? std::string_view() : std::string_view(c->resource_version);
}

bool TreeWrites::holds_quota(std::string_view key) const {
  const CachedWorkload* c = cached(key);
  return c != nullptr && c->holds_quota;
}

ObjectPtr TreeWrites::unpacked(const std::string& key, const PackedPtr& packed) const {
  auto object = packed->unpack();
  if (!object) {
    spdlog::error("tree {}: workload {}: {}", tree_, key, object.error().message);
    return nullptr;
  }
  return std::make_shared<const kube::client::Object>(std::move(*object));
}

ObjectPtr TreeWrites::unpacked(const std::string& key) const {
  const CachedWorkload* c = cached(key);
  return c == nullptr ? nullptr : unpacked(key, c->packed);
}

TreeWrites::WrittenOn TreeWrites::written_on(const ObjectPtr& object, bool is_cached_version) const {
  const CachedWorkload* c = is_cached_version ? cached(object->key()) : nullptr;
  const bool same = c != nullptr && c->resource_version == object->resource_version();
  return WrittenOn{same ? c->packed : messages::pack(*object), std::string(object->resource_version())};
}

WriteEffects TreeWrites::on_version(const std::string& key, CachedWorkload version, core::Time now) {
  WriteEffects fx;
  const bool holds = version.holds_quota;
  // Only a version showing the eviction settles it: one without the admission may
  // predate it (the victim's own admission still being written).
  if (version.evicted) preemption_settled(key);
  workloads_[key] = std::move(version);
  held_.erase(key);  // the engine applied it: a hold is released
  after_version(key, holds, now, fx);
  release_held_admissions(fx);
  return fx;
}

/// The writes that waited for a version of `key` newer than the one they were refused on.
void TreeWrites::after_version(const std::string& key, bool holds, core::Time now, WriteEffects& fx) {
  if (recheck_pending_.erase(key) != 0) rewrite_explanation(key, now, fx);
  if (auto r = recheck_evictions_.find(key); r != recheck_evictions_.end()) {
    core::EvictionDecision ev = std::move(r->second);
    recheck_evictions_.erase(r);
    if (holds) write_eviction(std::move(ev), now, fx);
  }
}

void TreeWrites::forget(const std::string& key) {
  workloads_.erase(key);
  writing_admissions_.erase(key);
  preemption_settled(key);
  std::erase_if(held_admissions_, [&](const HeldAdmission& h) { return h.decision.workload == key; });
  held_.erase(key);
  recheck_pending_.erase(key);
  recheck_evictions_.erase(key);
  for (int what : {Unsettled::Admission, Unsettled::Eviction, Unsettled::Checks, Unsettled::Conflict}) {
    unsettled_.erase({key, what});
  }
  pacer_.forget(key);
}

// -- decisions into writes --------------------------------------------------------------

void TreeWrites::write_status(WriteIntent intent, const std::string& key, json::value patch, Outstanding context,
                              WriteEffects& fx) {
  PlannedWrite w;
  w.ticket = next_ticket_++;
  w.request.intent = intent;
  w.request.kind = messages::ObjectKind::Workload;
  w.request.verb = messages::WriteVerb::MergePatchStatus;
  split_key(key, w.request.ns, w.request.name);
  w.request.body = std::make_shared<const json::value>(std::move(patch));
  w.request.precondition_rv = std::string(cached_version(key));
  outstanding_.emplace(w.ticket, std::move(context));
  fx.writes.push_back(std::move(w));
}

WriteEffects TreeWrites::plan(core::Decisions decisions, core::Time now) {
  WriteEffects fx;
  std::map<std::string, const core::PendingDecision*, std::less<>> requeued;
  for (const auto& p : decisions.pending) {
    if (!p.requeued_reason.empty()) requeued[p.workload] = &p;
  }
  for (const auto& ev : decisions.evictions) {
    const CachedWorkload* c = cached(ev.workload);
    if (ev.reason == "Preempted" && c != nullptr && !c->evicted) unlanded_preemptions_.insert(ev.workload);
  }
  std::set<std::string, std::less<>> admitted_now;
  for (auto& a : decisions.admissions) {
    if (cached(a.workload) == nullptr) continue;
    admitted_now.insert(a.workload);
    auto r = requeued.find(a.workload);
    if (a.after_preemptions && !unlanded_preemptions_.empty()) {
      // It fits only in quota the victims hold until their evictions land: written once
      // they have (release_held_admissions). Any other admission fits with them counted.
      writing_admissions_.insert(a.workload);
      HeldAdmission h{std::move(a), now, std::nullopt};
      if (r != requeued.end()) h.requeued = *r->second;
      held_admissions_.push_back(std::move(h));
      continue;
    }
    write_admission(std::move(a), r == requeued.end() ? nullptr : r->second, now, fx);
  }
  for (auto& ev : decisions.evictions) {
    // A victim whose own admission is still held (from an earlier round, or admitted
    // earlier in this one) never had it written: nothing is to be evicted, and its
    // eviction could not be written before that admission, which waits for the
    // preemptions. The admission is rolled back instead (its quota freed now, as the
    // eviction would free it), and the workload competes again.
    auto h = std::find_if(held_admissions_.begin(), held_admissions_.end(),
                          [&](const HeldAdmission& held) { return held.decision.workload == ev.workload; });
    if (h != held_admissions_.end()) {
      held_admissions_.erase(h);
      writing_admissions_.erase(ev.workload);
      preemption_settled(ev.workload);
      roll_back_admission(ev.workload, false, fx);
      continue;
    }
    write_eviction(std::move(ev), now, fx);
  }
  // The same workload reviewed twice in a round (two versions applied) asks twice: the
  // latest decision of each kind is the one carried out.
  std::map<std::pair<std::string, int>, const core::AdmissionCheckDecision*> checks;
  for (const auto& c : decisions.checks) checks[{c.workload, static_cast<int>(c.kind)}] = &c;
  for (const auto& [id, c] : checks) {
    if (admitted_now.count(c->workload) == 0) write_check_decision(*c, now, fx);
  }
  // A round runs many cycles: a workload told "no longer fits after processing another
  // workload" in one is told how much quota it needs in the next. Only its last words of
  // the round are written (a Requeued condition still goes out with the words it came with).
  std::unordered_map<std::string_view, std::size_t> last_words;
  for (std::size_t i = 0; i < decisions.pending.size(); ++i) last_words[decisions.pending[i].workload] = i;
  for (std::size_t i = 0; i < decisions.pending.size(); ++i) {
    auto& p = decisions.pending[i];
    if (p.requeued_reason.empty() && last_words[p.workload] != i) continue;
    // Admitted in this same round, or an admission of it is being written: that write
    // says everything, and an explanation would only invalidate its resourceVersion.
    if (admitted_now.count(p.workload) != 0 || writing_admissions_.count(p.workload) != 0) continue;
    if (cached(p.workload) == nullptr) continue;
    // Still holding quota as stored (an eviction not yet written or not yet completed):
    // an explanation now would mark it QuotaReserved=False beside its admission. It is
    // written once a version without the admission arrives.
    if (holds_quota(p.workload)) {
      recheck_pending_.insert(p.workload);
      continue;
    }
    // A Requeued condition (a restarted queue) is not part of the engine's view that a
    // deferred rewrite starts from: those go out at once (rare).
    if (auto w = pending_writes_.find(p.workload); w != pending_writes_.end() && p.requeued_reason.empty()) {
      w->second = true;  // written from the engine's view once the outstanding one settled
      continue;
    }
    // Words that change again within the interval are written once, when it ends.
    if (p.requeued_reason.empty() && !pacer_.may_write(p.workload, now)) {
      fx.publish = true;
      continue;
    }
    ObjectPtr object = unpacked(p.workload);
    if (!object) continue;
    auto patch = kube::jobs::pending_patch(*object, p, now);
    if (!patch) continue;
    write_explanation(p.workload, std::move(*patch), now, fx);
  }
  release_held_admissions(fx);
  return fx;
}

/// An admission decided at `decided_at`, written on the cached version (with the
/// Requeued condition of the same round, if any).
void TreeWrites::write_admission(core::AdmissionDecision a, const core::PendingDecision* requeued,
                                 core::Time decided_at, WriteEffects& fx) {
  ObjectPtr current = unpacked(a.workload);
  if (!current) {
    writing_admissions_.erase(a.workload);
    return;
  }
  ObjectPtr base = with_requeued(current, requeued, decided_at);
  auto patch = kube::jobs::admission_patch(*base, a, decided_at);
  if (!patch) {  // the object already records exactly this admission
    writing_admissions_.erase(a.workload);
    return;
  }
  writing_admissions_.insert(a.workload);
  // A base with the Requeued condition added is not the cached version: packed apart.
  WrittenOn on = written_on(base, base == current);
  std::string key = a.workload;
  write_status(WriteIntent::Admission, key, std::move(*patch), AdmissionWrite{std::move(a), std::move(on), decided_at},
               fx);
}

void TreeWrites::preemption_settled(const std::string& key) { unlanded_preemptions_.erase(key); }

void TreeWrites::release_held_admissions(WriteEffects& fx) {
  if (held_admissions_.empty()) return;
  // A victim the engine no longer holds as evicted (its quota released, or the workload
  // gone) waits for nothing: its eviction has no quota left to explain. Its cached
  // version alone does not say so: an admission of it may still be being written.
  std::erase_if(unlanded_preemptions_, [&](const std::string& key) {
    const CachedWorkload* c = cached(key);
    if (c == nullptr || c->evicted) return true;
    auto view = engine_.workload(key, false);
    return !view || !view->reserved || !view->evicted;
  });
  if (!unlanded_preemptions_.empty()) return;
  std::vector<HeldAdmission> held = std::move(held_admissions_);
  held_admissions_.clear();
  for (auto& h : held) {
    if (writing_admissions_.count(h.decision.workload) == 0) continue;  // rolled back or gone meanwhile
    writing_admissions_.erase(h.decision.workload);
    write_admission(std::move(h.decision), h.requeued ? &*h.requeued : nullptr, h.decided_at, fx);
  }
}

WriteEffects TreeWrites::due_explanations(core::Time now) {
  WriteEffects fx;
  for (const std::string& key : pacer_.take_due(now)) rewrite_explanation(key, now, fx);
  if (pacer_.deferred() > 0) fx.publish = true;
  return fx;
}

/// A pending explanation, conditional on the version it was computed from: the whole
/// conditions list is replaced, so written over a newer object (an admission that landed
/// meanwhile) it would undo that. Refused, it is recomputed on the newer object.
void TreeWrites::write_explanation(const std::string& key, json::value patch, core::Time now, WriteEffects& fx) {
  pending_writes_[key] = false;
  pacer_.wrote(key, now);
  write_status(WriteIntent::PendingExplanation, key, std::move(patch),
               ExplanationWrite{key, std::string(cached_version(key))}, fx);
}

/// The engine's current explanation of a pending workload, written if the object does
/// not show it.
void TreeWrites::rewrite_explanation(const std::string& key, core::Time now, WriteEffects& fx) {
  if (writing_admissions_.count(key) != 0 || cached(key) == nullptr) return;
  if (holds_quota(key)) {
    recheck_pending_.insert(key);
    return;
  }
  auto view = engine_.workload(key, false);
  if (!view || view->reserved || view->finished || view->pending.reason.empty()) return;
  if (!pacer_.may_write(key, now)) {  // rewritten from the engine's view when due
    fx.publish = true;
    return;
  }
  ObjectPtr object = unpacked(key);
  if (!object) return;
  core::PendingDecision d;
  d.workload = key;
  d.reason = view->pending.reason;
  d.message = view->pending.message;
  auto patch = kube::jobs::pending_patch(*object, d, now);
  if (patch) write_explanation(key, std::move(*patch), now, fx);
}

/// An eviction, conditional on the version its patch was computed from: the patch
/// replaces the whole conditions list, and computed from a version that predates the
/// workload's admission (still being written, or written but not yet seen on the watch)
/// it would drop QuotaReserved and Admitted while the admission stays.
void TreeWrites::write_eviction(core::EvictionDecision ev, core::Time now, WriteEffects& fx) {
  const std::string key = ev.workload;
  if (writing_admissions_.count(key) != 0) {
    recheck_evictions_[key] = std::move(ev);
    return;
  }
  ObjectPtr object = unpacked(key);
  auto patch = object ? kube::jobs::eviction_patch(*object, ev, now) : std::nullopt;
  if (!patch) {  // nothing to write (the object shows it already): nothing to wait for
    preemption_settled(key);
    return;
  }
  WrittenOn on = written_on(object, true);
  write_status(WriteIntent::Eviction, key, std::move(*patch), EvictionWrite{std::move(ev), std::move(on)}, fx);
}

/// Kueue's Workload controller on the admission checks of a workload holding quota: the
/// list synced, Admitted=True, or DeactivationTarget for a Rejected check. A refused
/// write is not retried here: the newer version that refused it makes the engine ask
/// again if it is still due.
void TreeWrites::write_check_decision(const core::AdmissionCheckDecision& d, core::Time now, WriteEffects& fx) {
  using Kind = core::AdmissionCheckDecision::Kind;
  // An admission being written says it all; its version brings the rest.
  if (writing_admissions_.count(d.workload) != 0 || !holds_quota(d.workload)) return;
  ObjectPtr object = unpacked(d.workload);
  if (!object) return;
  kube::jobs::StatusPatch patch;
  switch (d.kind) {
    case Kind::SyncChecks: patch = kube::jobs::admission_checks_patch(*object, d.checks, now); break;
    case Kind::Admit: patch = kube::jobs::admitted_patch(*object, now); break;
    case Kind::Deactivate: patch = kube::jobs::deactivation_target_patch(*object, d.message, now); break;
  }
  if (!patch) return;
  WrittenOn on = written_on(object, true);
  write_status(WriteIntent::CheckDecision, d.workload, std::move(*patch), CheckWrite{d, std::move(on), now}, fx);
}

/// An eviction refused (409) for the version `based_on`: written again on the newer
/// version, now if it arrived, else when it does, if the workload still holds quota.
void TreeWrites::evict_on_newer_version(const core::EvictionDecision& ev, std::string_view based_on, core::Time now,
                                        WriteEffects& fx) {
  const std::string_view current = cached_version(ev.workload);
  const bool newer_here = !current.empty() && current != based_on;
  if (newer_here) {
    if (holds_quota(ev.workload)) write_eviction(ev, now, fx);
  } else {
    recheck_evictions_[ev.workload] = ev;
  }
}

/// An admission whose read still shows the version it was written on: the same admission
/// is written again on that version. At most one of the two can land; this one's answer
/// settles it (landed; or refused because the object moved on, and a read says why).
void TreeWrites::fence_admission(const std::string& key, Unsettled& u, WriteEffects& fx) {
  ObjectPtr base = unpacked(key, u.admission.on.packed);
  kube::jobs::StatusPatch patch;
  if (base) patch = kube::jobs::admission_patch(*base, u.admission.decision, u.admission.decided_at);
  if (!patch) {
    // Nothing to write it on: the read said it did not land, and nothing can land now.
    writing_admissions_.erase(key);
    roll_back_admission(key, false, fx);
    return;
  }
  spdlog::info("tree {}: admission of {}: still at version {} when read; writing it again on that version to "
               "settle it",
               tree_, key, u.based_on);
  AdmissionWrite again = std::move(u.admission);
  again.fence = true;
  write_status(WriteIntent::Admission, key, std::move(*patch), std::move(again), fx);
  fx.writes.back().request.precondition_rv = u.based_on;
}

/// An admission known not to have landed: the quota the engine assumed is given back and
/// the workload competes again (Kueue's assume/forget); `hold` keeps it out of rounds
/// until a newer version of it is applied.
void TreeWrites::roll_back_admission(const std::string& key, bool hold, WriteEffects& fx) {
  ++rolled_back_;
  (void)engine_.forget_admission(key, hold);
  fx.dirty = true;
}

// -- outcomes ---------------------------------------------------------------------------

WriteEffects TreeWrites::on_outcome(std::uint64_t ticket, const WriteOutcome& outcome, core::Time now) {
  WriteEffects fx;
  auto it = outstanding_.find(ticket);
  if (it == outstanding_.end()) return fx;
  Outstanding context = std::move(it->second);
  outstanding_.erase(it);
  std::visit(
      [&](auto& w) {
        using W = std::decay_t<decltype(w)>;
        if constexpr (std::is_same_v<W, AdmissionWrite>) admission_done(std::move(w), outcome, fx);
        if constexpr (std::is_same_v<W, EvictionWrite>) eviction_done(std::move(w), outcome, now, fx);
        if constexpr (std::is_same_v<W, CheckWrite>) check_done(std::move(w), outcome, fx);
        if constexpr (std::is_same_v<W, ExplanationWrite>) explanation_done(w, outcome, now, fx);
        if constexpr (std::is_same_v<W, ReadBack>) read_done(w, outcome, now, fx);
      },
      context);
  release_held_admissions(fx);
  return fx;
}

void TreeWrites::admission_done(AdmissionWrite w, const WriteOutcome& o, WriteEffects& fx) {
  const std::string key = w.decision.workload;
  // A fence refused (409): the object moved on from the version both writes were
  // conditional on, perhaps by the lost write itself; a read says which.
  if (o.maybe_landed || (w.fence && o.http_status == 409)) {
    if (writing_admissions_.count(key) == 0) return;  // the workload went meanwhile
    // It may have landed: giving its quota to another workload now could admit both.
    spdlog::info("tree {}: admission of {}: no answer ({} {}); its quota stays held until a read says whether it "
                 "landed",
                 tree_, key, o.http_status, why(o));
    Unsettled u;
    u.what = Unsettled::Admission;
    u.based_on = w.on.resource_version;
    u.admission = std::move(w);
    read_back(key, std::move(u), fx);
    return;  // still being written: explanations and evictions of it wait
  }
  const bool known = writing_admissions_.erase(key) != 0;
  if (o.ok) {
    if (ObjectPtr object = unpacked(key, w.on.packed)) fx.landed.push_back(Landed{w.decision, object, w.decided_at});
    return;
  }
  if (!known) return;  // the workload went meanwhile: nothing holds its quota any more
  if (o.reason == "NotOwner") {
    // The shard is going away: the next round belongs to whoever holds it next (and
    // here, to the ownership change that brings it back).
    spdlog::debug("tree {}: admission of {} not written: {}", tree_, key, o.message);
    ++rolled_back_;
    (void)engine_.forget_admission(key, false);
    return;
  }
  // A conflict on the very version this decision saw means a newer object is on its way:
  // until it is applied, another attempt would be refused the same way, as fast as the
  // API server answers.
  const bool stale = o.http_status == 409 && cached_version(key) == w.on.resource_version;
  spdlog::info("tree {}: admission of {} not written ({} {}); requeued{}", tree_, key, o.http_status, why(o),
               stale ? " once its newer version arrives" : "");
  roll_back_admission(key, stale, fx);
  if (stale) {
    held_.insert(key);
    check_conflict(key, w.on.resource_version, fx);
  }
}

void TreeWrites::eviction_done(EvictionWrite w, const WriteOutcome& o, core::Time now, WriteEffects& fx) {
  const std::string key = w.decision.workload;  // a copy: the decision moves on below
  if (o.ok) {
    preemption_settled(key);
    if (ObjectPtr object = unpacked(key, w.on.packed)) fx.landed.push_back(Landed{w.decision, object, now});
    return;
  }
  if (o.superseded) return;  // the write that superseded it settles it
  if (o.http_status == 404 || o.reason == "NotOwner" || cached(key) == nullptr) {
    preemption_settled(key);  // nothing will write it again
    return;
  }
  if (o.http_status == 409) {
    evict_on_newer_version(w.decision, w.on.resource_version, now, fx);
    if (recheck_evictions_.count(key) != 0) check_conflict(key, w.on.resource_version, fx);
    return;
  }
  // No newer version will ask for it again: the workload is read back, and evicted on
  // what the read shows (at once for a lost answer, after a pause for a refusal).
  spdlog::info("tree {}: eviction of {} not settled ({} {}{}); reading it back", tree_, key, o.http_status, why(o),
               o.maybe_landed ? ", it may have landed" : "");
  Unsettled u;
  u.what = Unsettled::Eviction;
  u.based_on = w.on.resource_version;
  u.eviction = std::move(w.decision);
  u.reads = o.maybe_landed ? 0 : 1;
  read_back(key, std::move(u), fx);
}

void TreeWrites::check_done(CheckWrite w, const WriteOutcome& o, WriteEffects& fx) {
  const std::string key = w.decision.workload;
  if (o.ok) {
    if (ObjectPtr object = unpacked(key, w.on.packed)) fx.landed.push_back(Landed{w.decision, object, w.decided_at});
    return;
  }
  if (o.superseded || o.http_status == 404 || o.reason == "NotOwner") return;
  if (o.http_status == 409) {
    // The newer version makes the engine ask again, if it still applies.
    if (cached_version(key) == w.on.resource_version) check_conflict(key, w.on.resource_version, fx);
    return;
  }
  if (cached(key) == nullptr) return;
  // A newer version makes the engine ask again; none may come: read it back.
  spdlog::info("tree {}: admission checks of {} not settled ({} {}); reading it back", tree_, key, o.http_status,
               why(o));
  Unsettled u;
  u.what = Unsettled::Checks;
  u.based_on = w.on.resource_version;
  u.checks = std::move(w);
  u.reads = o.maybe_landed ? 0 : 1;
  read_back(key, std::move(u), fx);
}

void TreeWrites::explanation_done(const ExplanationWrite& w, const WriteOutcome& o, core::Time now,
                                  WriteEffects& fx) {
  const std::string& key = w.key;
  bool newer_decided = false;
  if (auto p = pending_writes_.find(key); p != pending_writes_.end()) {
    newer_decided = p->second;
    pending_writes_.erase(p);
  }
  const std::string_view current = cached_version(key);
  if (o.superseded_by_urgent) {
    // An admission or eviction of it went first. Landed, the version it brings says
    // whether this explanation still applies (at once if that version already arrived);
    // refused, no version follows from it: said again now, from the engine's view.
    const bool moved_on = !current.empty() && current != w.based_on;
    if (!o.superseding_write_landed || moved_on) {
      rewrite_explanation(key, now, fx);
    } else {
      recheck_pending_.insert(key);
    }
    return;
  }
  if (o.ok) {
    if (!newer_decided) return;
    // A newer explanation waits: compute it on the version this write made, now if that
    // version already arrived, else when it does.
    const bool arrived = !current.empty() && o.object && current == o.object->resource_version();
    if (arrived) {
      rewrite_explanation(key, now, fx);
    } else {
      recheck_pending_.insert(key);
    }
    return;
  }
  if (o.http_status != 409) {
    if (newer_decided) recheck_pending_.insert(key);
    return;
  }
  // Refused: the object changed. If the newer version already arrived (before this
  // answer), nothing else will bring it: rewrite now, from the engine's current view.
  const bool newer_here = !current.empty() && current != w.based_on;
  if (newer_here) {
    rewrite_explanation(key, now, fx);
  } else {
    recheck_pending_.insert(key);
    if (!current.empty()) check_conflict(key, w.based_on, fx);
  }
}

// -- read-backs -------------------------------------------------------------------------

void TreeWrites::read_back(const std::string& key, Unsettled u, WriteEffects& fx) {
  const int what = static_cast<int>(u.what);
  const auto delay = read_back_delay(u.reads);
  unsettled_.insert_or_assign({key, what}, std::move(u));
  if (delay.count() == 0) {
    send_read(key, what, fx);
  } else {
    fx.delayed_reads.push_back(DelayedRead{key, what, delay});
  }
}

/// A write refused with 409 on the version `based_on` waits for a newer one (an admission
/// held out of rounds, an eviction or explanation to be written on it). A 409 that no
/// newer version follows (a proxy's, a webhook's) would leave it waiting for good: if
/// the cached version is still `based_on` after a pause, the workload is read, and a read
/// showing that same version counts as that version arriving again.
void TreeWrites::check_conflict(const std::string& key, std::string_view based_on, WriteEffects& fx) {
  Unsettled u;
  u.what = Unsettled::Conflict;
  u.based_on = std::string(based_on);
  unsettled_.insert_or_assign({key, static_cast<int>(Unsettled::Conflict)}, std::move(u));
  fx.delayed_reads.push_back(DelayedRead{key, Unsettled::Conflict, kConflictCheckPause});
}

WriteEffects TreeWrites::read_due(const std::string& key, int what) {
  WriteEffects fx;
  send_read(key, what, fx);
  return fx;
}

void TreeWrites::send_read(const std::string& key, int what, WriteEffects& fx) {
  auto it = unsettled_.find({key, what});
  if (it == unsettled_.end() || it->second.reading) return;
  if (what == Unsettled::Conflict && cached_version(key) != it->second.based_on) {
    unsettled_.erase(it);  // the newer version arrived: what waited for it was done then
    return;
  }
  it->second.reading = true;
  ++read_backs_;
  PlannedWrite r;
  r.ticket = next_ticket_++;
  r.request.intent = WriteIntent::Read;  // urgent: quota may be held until it is answered
  r.request.kind = messages::ObjectKind::Workload;
  r.request.verb = messages::WriteVerb::Get;
  split_key(key, r.request.ns, r.request.name);
  outstanding_.emplace(r.ticket, ReadBack{key, what});
  fx.writes.push_back(std::move(r));
}

void TreeWrites::read_done(const ReadBack& r, const WriteOutcome& o, core::Time now, WriteEffects& fx) {
  auto it = unsettled_.find({r.key, r.what});
  if (it == unsettled_.end()) return;  // the workload went meanwhile
  Unsettled& u = it->second;
  u.reading = false;
  if (o.ok && o.object) {
    Unsettled done = std::move(u);
    unsettled_.erase(it);
    settle(r.key, done, o.object, now, fx);
    return;
  }
  if (o.http_status == 404) {
    // Gone: its DELETED event removes it; what the write would have held goes with it.
    const bool admission = u.what == Unsettled::Admission;
    unsettled_.erase(it);
    if (admission && writing_admissions_.erase(r.key) != 0) roll_back_admission(r.key, false, fx);
    return;
  }
  ++u.reads;
  spdlog::info("tree {}: reading {} back failed ({} {}); again in {} ms", tree_, r.key, o.http_status, why(o),
               read_back_delay(u.reads).count());
  fx.delayed_reads.push_back(DelayedRead{r.key, r.what, read_back_delay(u.reads)});
}

void TreeWrites::settle(const std::string& key, Unsettled& u, const ObjectPtr& read, core::Time now,
                        WriteEffects& fx) {
  switch (u.what) {
    case Unsettled::Admission: {
      const ReadVerdict v = judge_admission(*read, u.admission.decision, u.based_on);
      if (v == ReadVerdict::NotLanded) {
        // Still the version the write was conditional on, but the write may still be on
        // its way (a read can overtake it): giving its quota away now could admit twice.
        fence_admission(key, u, fx);
        return;
      }
      writing_admissions_.erase(key);
      if (v == ReadVerdict::Landed) {
        spdlog::info("tree {}: admission of {} landed (read back)", tree_, key);
        if (ObjectPtr object = unpacked(key, u.admission.on.packed)) {
          fx.landed.push_back(Landed{u.admission.decision, object, u.admission.decided_at});
        }
        return;
      }
      // Overtaken: the newer version it read may not have arrived yet; until it does,
      // another attempt would be refused.
      const bool hold = v == ReadVerdict::Overtaken && cached_version(key) != read->resource_version();
      spdlog::info("tree {}: admission of {} did not land (the workload moved on to version {}); requeued", tree_,
                   key, read->resource_version());
      roll_back_admission(key, hold, fx);
      return;
    }
    case Unsettled::Eviction: {
      const ReadVerdict v = judge_eviction(*read, u.based_on);
      if (v == ReadVerdict::Landed) {
        preemption_settled(key);
        if (read->condition_true("Evicted")) fx.landed.push_back(Landed{u.eviction, read, now});
      } else if (v == ReadVerdict::NotLanded) {
        if (holds_quota(key)) write_eviction(std::move(u.eviction), now, fx);
      } else {
        evict_on_newer_version(u.eviction, u.based_on, now, fx);
      }
      return;
    }
    case Unsettled::Conflict: {
      // A newer version exists: the watch brings it, and what waits is done then.
      if (read->resource_version() != u.based_on || cached_version(key) != u.based_on) return;
      spdlog::info("tree {}: {} is still at version {} after a conflict; acting on that version again", tree_, key,
                   u.based_on);
      // An admission refused on it was held until a newer version: applying the same
      // one again lets it compete. Only then: a read answered before one of our writes
      // landed shows a version older than the engine's view (an admission that landed
      // since, its version not yet here), and applied it would free that quota.
      if (held_.erase(key) != 0 && writing_admissions_.count(key) == 0) {
        const CachedWorkload* c = cached(key);
        auto model = kube::decode_workload_text(c->packed->text());
        if (!model) {
          spdlog::error("tree {}: workload {}: {}", tree_, key, model.error().message);
          return;
        }
        (void)engine_.apply(*model);
        fx.dirty = true;
      }
      after_version(key, holds_quota(key), now, fx);
      return;
    }
    case Unsettled::Checks: {
      const ReadVerdict v = judge_by_version(*read, u.based_on);
      if (v == ReadVerdict::NotLanded) {
        write_check_decision(u.checks.decision, now, fx);
        return;
      }
      using Kind = core::AdmissionCheckDecision::Kind;
      const auto& d = u.checks.decision;
      const bool shows = (d.kind == Kind::Admit && read->condition_true("Admitted")) ||
                         (d.kind == Kind::Deactivate && read->condition_true("DeactivationTarget"));
      if (shows) fx.landed.push_back(Landed{d, read, u.checks.decided_at});
      return;
    }
  }
}

}  // namespace kueuepp::actors
