#pragma once

// The LocalQueue tallies two ways, for the engine tests to compare: as the engine keeps
// them (Engine::for_each_local_queue_tally) and recounted from the workload views, which
// the engine derives from its records without the tallies.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "core/engine/engine.hpp"

namespace kueuepp::core::testing {

struct TallyCounts {
  std::int64_t pending = 0, reserving = 0, admitted = 0;
  std::map<std::pair<std::string, std::string>, std::int64_t> reserved, used;  ///< (flavor, resource) -> milli
  bool operator==(const TallyCounts&) const = default;

  std::string describe() const {
    std::string out = std::to_string(pending) + " pending, " + std::to_string(reserving) + " reserving, " +
                      std::to_string(admitted) + " admitted; reserved";
    for (const auto& [fr, milli] : reserved) out += " " + fr.first + "/" + fr.second + "=" + std::to_string(milli);
    out += "; used";
    for (const auto& [fr, milli] : used) out += " " + fr.first + "/" + fr.second + "=" + std::to_string(milli);
    return out;
  }
};

/// "cq ns lq" -> what the engine kept. A LocalQueue visited twice is counted as a failure.
inline std::map<std::string, TallyCounts> kept_tallies(const Engine& e) {
  std::map<std::string, TallyCounts> out;
  e.for_each_local_queue_tally([&](const LocalQueueTally& t) {
    const std::string key = std::string(t.cluster_queue) + " " + std::string(t.ns) + " " + std::string(t.local_queue);
    EXPECT_EQ(out.count(key), 0u) << key << " visited twice";
    TallyCounts& x = out[key];
    x.pending = t.pending;
    x.reserving = t.reserving;
    x.admitted = t.admitted;
    for (const auto& u : t.reserved) x.reserved[{std::string(u.flavor), std::string(u.resource)}] += u.milli;
    for (const auto& u : t.used) x.used[{std::string(u.flavor), std::string(u.resource)}] += u.milli;
  });
  return out;
}

/// The same recounted from the views of the workloads that are not finished and are in a
/// ClusterQueue; `local_queue_of(key)` gives a workload's "ns lq" (the views do not name
/// their LocalQueue).
inline std::map<std::string, TallyCounts> recounted_tallies(
    const Engine& e, const std::function<std::string(const std::string&)>& local_queue_of) {
  std::map<std::string, TallyCounts> out;
  for (const auto& view : e.workloads()) {
    if (view.finished || view.cluster_queue.empty()) continue;
    TallyCounts& t = out[view.cluster_queue + " " + local_queue_of(view.key)];
    if (!view.reserved) {
      ++t.pending;
      continue;
    }
    ++t.reserving;
    if (view.admitted) ++t.admitted;
    for (const auto& ps : view.admission->pod_set_assignments) {
      for (const auto& [r, q] : ps.resource_usage) {
        t.reserved[{ps.flavors.at(r), r}] += q.milli();
        if (view.admitted) t.used[{ps.flavors.at(r), r}] += q.milli();
      }
    }
  }
  return out;
}

/// Where two sets of tallies differ, queue by queue ("" when they agree).
inline std::string tally_differences(const std::map<std::string, TallyCounts>& kept,
                                     const std::map<std::string, TallyCounts>& recounted) {
  std::string out;
  for (const auto& [k, r] : recounted) {
    auto it = kept.find(k);
    if (it == kept.end() || !(it->second == r)) {
      out += "; " + k + ": kept " + (it == kept.end() ? "nothing" : it->second.describe()) + ", recounted " +
             r.describe();
    }
  }
  for (const auto& [k, v] : kept) {
    if (recounted.count(k) == 0) out += "; " + k + ": kept " + v.describe() + ", recounted nothing";
  }
  return out;
}

}  // namespace kueuepp::core::testing
