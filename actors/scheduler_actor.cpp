#include "actors/scheduler_actor.hpp"

#include <caf/actor_clock.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct SchedulerState {
  SchedulerOptions options;
  std::map<std::string, cohort_tree_actor> trees;
  std::set<std::string> dirty;
  std::set<std::string> running;
  std::map<std::string, core::Time> wake_at;
  bool tick_scheduled = false;
  /// When the pending wake-up timer fires (none armed: nullopt): the decision time it was
  /// armed for, and when it fires on the actor clock.
  std::optional<core::Time> armed_for;
  caf::actor_clock::time_point armed_fires_at{};
  /// Trees whose last round decided nothing wait this long before the next one (Kueue's
  /// scheduler backs off 1 ms doubling to 10 ms the same way): a burst of changes that
  /// cannot be admitted costs a few rounds instead of one per change.
  std::map<std::string, std::chrono::milliseconds> idle_backoff;
  /// On the actor clock (CAF's, which tests drive), not the decision clock.
  std::map<std::string, caf::actor_clock::time_point> not_before;
  std::optional<caf::actor_clock::time_point> backoff_armed_for;
  std::uint64_t handled = 0;
  std::uint64_t rounds = 0;
  std::uint64_t admitted = 0;
  std::uint64_t preempted = 0;
};

using Self = scheduler_actor::stateful_pointer<SchedulerState>;

core::Time now_of(const SchedulerState& st) {
  return st.options.clock ? st.options.clock()
                          : std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

void schedule_tick(Self self) {
  auto& st = self->state;
  if (st.tick_scheduled) return;
  st.tick_scheduled = true;
  if (st.options.batching_window.count() <= 0) {
    self->send(self, SchedulerTick{});
  } else {
    self->delayed_send(self, st.options.batching_window, SchedulerTick{});
  }
}

/// A timer for the earliest wake-up (a requeue backoff expiring in some tree).
void arm_wakeup(Self self, core::Time now) {
  auto& st = self->state;
  std::optional<core::Time> earliest;
  for (const auto& [tree, at] : st.wake_at) {
    if (!earliest || at < *earliest) earliest = at;
  }
  if (!earliest) return;
  if (st.armed_for && *st.armed_for > now && *st.armed_for <= *earliest) return;  // already covered
  st.armed_for = *earliest;
  auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(*earliest - now) + std::chrono::milliseconds(1);
  if (delay.count() < 1) delay = std::chrono::milliseconds(1);
  st.armed_fires_at = self->clock().now() + delay;
  self->delayed_send(self, delay, SchedulerTick{});
}

void tick(Self self) {
  auto& st = self->state;
  st.tick_scheduled = false;
  core::Time now = now_of(st);
  // The timer runs on the actor clock (steady), wake-ups are in decision time (the system
  // clock, which NTP may slew behind it): once the timer has fired it is no longer armed,
  // even if the decision clock has not reached its wake-up yet. A wake-up still ahead is
  // armed again below instead of waiting for an unrelated event.
  if (st.armed_for && (*st.armed_for <= now || self->clock().now() >= st.armed_fires_at)) st.armed_for.reset();
  for (auto it = st.wake_at.begin(); it != st.wake_at.end();) {
    if (it->second <= now) {
      st.dirty.insert(it->first);
      it = st.wake_at.erase(it);
    } else {
      ++it;
    }
  }
  std::optional<caf::actor_clock::time_point> earliest_backoff;
  const auto clock_now = self->clock().now();
  for (auto it = st.dirty.begin(); it != st.dirty.end();) {
    auto tree = st.trees.find(*it);
    if (tree == st.trees.end()) {
      it = st.dirty.erase(it);
      continue;
    }
    if (st.running.count(*it) != 0) {
      ++it;  // after its current round
      continue;
    }
    if (auto nb = st.not_before.find(*it); nb != st.not_before.end()) {
      if (nb->second > clock_now) {
        if (!earliest_backoff || nb->second < *earliest_backoff) earliest_backoff = nb->second;
        ++it;  // backing off after an idle round
        continue;
      }
      st.not_before.erase(nb);
    }
    self->send(tree->second, RunRound{now});
    st.running.insert(*it);
    it = st.dirty.erase(it);
  }
  if (earliest_backoff && (!st.backoff_armed_for || *st.backoff_armed_for <= clock_now ||
                           *earliest_backoff < *st.backoff_armed_for)) {
    st.backoff_armed_for = *earliest_backoff;
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(*earliest_backoff - clock_now) +
                 std::chrono::milliseconds(1);
    self->delayed_send(self, delay, SchedulerTick{});
  }
  arm_wakeup(self, now);
}

/// After a round: an idle one doubles the tree's wait before its next round (1 ms up to
/// 16 ms); one that admitted or preempted anything resets it.
void pace_after(SchedulerState& st, const RoundDone& done, caf::actor_clock::time_point now) {
  if (done.admitted > 0 || done.preempted > 0) {
    st.idle_backoff.erase(done.tree);
    st.not_before.erase(done.tree);
    return;
  }
  auto& b = st.idle_backoff[done.tree];
  b = std::min(std::max(b * 2, std::chrono::milliseconds(1)), std::chrono::milliseconds(16));
  st.not_before[done.tree] = now + b;
}

}  // namespace

messages::scheduler_actor spawn_scheduler(caf::actor_system& system, SchedulerOptions options,
                                          messages::introspection_actor introspection) {
  return system.spawn([options, introspection](Self self) -> scheduler_actor::behavior_type {
    self->state.options = options;
    self->send(introspection, ActorRegistered{"scheduler", "scheduler", self->address(),
                                              caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [self](TreeRegistered& r) {
          ++self->state.handled;
          self->state.trees[r.tree] = r.actor;
          self->state.dirty.insert(r.tree);
          schedule_tick(self);
        },
        [self](TreeRetired& r) {
          auto& st = self->state;
          ++st.handled;
          st.trees.erase(r.tree);
          st.idle_backoff.erase(r.tree);
          st.not_before.erase(r.tree);
          st.dirty.erase(r.tree);
          st.running.erase(r.tree);
          st.wake_at.erase(r.tree);
        },
        [self](TreeDirty& d) {
          ++self->state.handled;
          self->state.dirty.insert(d.tree);
          schedule_tick(self);
        },
        [self](RoundDone& done) {
          auto& st = self->state;
          ++st.handled;
          ++st.rounds;
          st.admitted += done.admitted;
          st.preempted += done.preempted;
          st.running.erase(done.tree);
          pace_after(st, done, self->clock().now());
          if (done.wake_at) {
            st.wake_at[done.tree] = *done.wake_at;
            arm_wakeup(self, now_of(st));
          } else {
            st.wake_at.erase(done.tree);
          }
          if (st.options.on_round) st.options.on_round(done);
          if (st.dirty.count(done.tree) != 0) schedule_tick(self);
        },
        [self](SchedulerTick) {
          ++self->state.handled;
          tick(self);
        },
        [self](IntrospectActor) -> ActorInfo {
          auto& st = self->state;
          json::object o;
          o["trees"] = st.trees.size();
          o["dirty"] = st.dirty.size();
          o["running"] = st.running.size();
          o["rounds"] = st.rounds;
          o["admitted"] = st.admitted;
          o["preempted"] = st.preempted;
          return ActorInfo{"scheduler", "scheduler", self->mailbox().size(), st.handled, json::dump(o)};
        },
    };
  });
}

}  // namespace kueuepp::actors
