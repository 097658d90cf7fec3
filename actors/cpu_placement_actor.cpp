#include "actors/cpu_placement_actor.hpp"

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include <optional>
#include <string>
#include <utility>

#include "kube/json/json.hpp"

namespace kueuepp::actors {

using messages::cpu_placement_actor;
using messages::CpuPlacementTick;

namespace {

struct PlacementState {
  static inline const char* name = "cpu-placement";
  CpuPlacementSystem system;
  CpuPlacementActorOptions options;
  std::optional<CpuPlacementPolicy> policy;
  std::optional<CpuCounters> last;
  CpuWindow last_window;
  std::uint64_t handled = 0;
  std::uint64_t windows = 0;
  std::uint64_t pins = 0;
  std::uint64_t spreads = 0;
  std::string last_change;  ///< why the placement last changed
  std::string error;        ///< set when the system refused: the actor stopped trying
};

using Self = cpu_placement_actor::stateful_pointer<PlacementState>;

std::string cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (int c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

void give_up(Self self, std::string error) {
  auto& st = self->state;
  spdlog::warn("cpu placement: {}; the controller's threads stay where the kernel puts them", error);
  st.error = std::move(error);
}

void apply(Self self, const PlacementDecision& d) {
  auto& st = self->state;
  const bool pin = d.action == PlacementDecision::Action::Pin;
  const std::vector<int> cpus = pin ? std::vector<int>{st.system.allowed[d.cpu]} : st.system.allowed;
  if (auto placed = st.system.place(cpus); !placed) {
    st.policy->failed();
    give_up(self, placed.error().message);
    return;
  }
  ++(pin ? st.pins : st.spreads);
  st.last_change = d.why;
  spdlog::info("cpu placement: the controller's threads {} CPU {}: {}", pin ? "share" : "spread over",
               cpu_list(cpus), d.why);
}

void tick(Self self) {
  auto& st = self->state;
  if (!st.error.empty()) return;
  auto now = st.system.read();
  if (!now) {
    give_up(self, "cannot measure the controller's CPU use: " + now.error().message);
    return;
  }
  if (st.last) {
    st.last_window = window_between(*st.last, *now);
    ++st.windows;
    const PlacementDecision d = st.policy->observe(st.last_window);
    if (d.action != PlacementDecision::Action::Keep) apply(self, d);
  }
  st.last = std::move(*now);
  if (st.error.empty()) self->delayed_send(self, st.options.window, CpuPlacementTick{});
}

messages::ActorInfo introspect(Self self) {
  auto& st = self->state;
  json::object summary;
  summary["allowedCpus"] = cpu_list(st.system.allowed);
  summary["placement"] = st.policy->pinned() ? "one CPU" : "spread";
  if (auto cpu = st.policy->pinned_cpu()) summary["cpu"] = st.system.allowed[*cpu];
  summary["windows"] = st.windows;
  summary["pins"] = st.pins;
  summary["spreads"] = st.spreads;
  if (st.last_window.seconds > 0) {
    summary["lastWindowCores"] = st.last_window.cpu_seconds / st.last_window.seconds;
  }
  if (!st.last_change.empty()) summary["lastChange"] = st.last_change;
  if (!st.error.empty()) summary["error"] = st.error;
  return messages::ActorInfo{"cpu-placement", "cpu-placement", self->mailbox().size(), st.handled,
                             json::dump(summary)};
}

}  // namespace

Expected<CpuPlacementSystem> linux_cpu_placement() {
  auto allowed = allowed_cpus();
  if (!allowed) return unexpected(allowed.error());
  CpuPlacementSystem s;
  s.allowed = std::move(*allowed);
  s.read = [cpus = s.allowed] { return read_cpu_counters(cpus); };
  s.place = [](const std::vector<int>& cpus) { return set_process_cpus(cpus); };
  return s;
}

cpu_placement_actor spawn_cpu_placement(caf::actor_system& system, CpuPlacementSystem placement,
                                        CpuPlacementActorOptions options,
                                        messages::introspection_actor introspection) {
  return system.spawn([placement = std::move(placement), options,
                       introspection](Self self) -> cpu_placement_actor::behavior_type {
    auto& st = self->state;
    st.system = placement;
    st.options = options;
    st.policy.emplace(st.system.allowed.size(), options.policy);
    self->send(introspection, messages::ActorRegistered{"cpu-placement", "cpu-placement", self->address(),
                                                        caf::actor_cast<caf::strong_actor_ptr>(self)});
    self->send(self, CpuPlacementTick{});
    return {
        [self](CpuPlacementTick) {
          ++self->state.handled;
          tick(self);
        },
        [self](messages::IntrospectActor) -> messages::ActorInfo {
          ++self->state.handled;
          return introspect(self);
        },
    };
  });
}

}  // namespace kueuepp::actors
