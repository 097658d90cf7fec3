#pragma once

// What a read of a Workload says about a status write of the tree that did not settle:
// its answer was lost (it may have landed), or it was refused in a way that no newer
// version of the object will retry. Pure logic for the cohort-tree actor, which keeps
// an admission's quota held until this says the write did not land.

#include <chrono>
#include <cstdint>
#include <string_view>

#include "core/engine/decisions.hpp"
#include "kube/client/object.hpp"

namespace kueuepp::actors {

enum class ReadVerdict {
  Landed,     ///< the object shows what the write said (or its effect is moot)
  NotLanded,  ///< the object is still the version the write was conditional on
  Overtaken,  ///< the object moved on without it: a write conditional on the older
              ///< version can no longer land, and what it said must be decided again
};

/// An admission landed when the object records a reservation in the decision's queue.
ReadVerdict judge_admission(const kube::client::Object& read, const core::AdmissionDecision& admission,
                            std::string_view based_on);

/// An eviction landed when the object says Evicted=True, and is moot once the object
/// holds no quota.
ReadVerdict judge_eviction(const kube::client::Object& read, std::string_view based_on);

/// For writes whose effect the engine asks for again on every newer version (admission
/// check decisions): NotLanded while the object is unchanged, Overtaken otherwise.
ReadVerdict judge_by_version(const kube::client::Object& read, std::string_view based_on);

/// How long to wait before read number `attempt` (0: at once) of the same write: from
/// 200 ms, doubling, at most 10 s. Reads are retried for as long as they fail: quota
/// stays held meanwhile, which is safe, and releasing it on a guess is not.
std::chrono::milliseconds read_back_delay(std::uint32_t attempt);

}  // namespace kueuepp::actors
