#pragma once

// What the LocalQueue statuses count (pending, reserving and admitted workloads, and the
// quota they hold), kept as workloads change instead of recounted: the status publish
// asks for it every second, and a walk over every live workload record each time was
// mostly cache misses (tens of thousands of records at scale). Each workload remembers
// the share it added (TallyShare, in its record); the engine moves that share whenever
// the workload's queue, reservation, admission or life changes.
//
// Usage is summed exactly (128 bits) so that taking a share out always undoes adding
// it, and saturated to 64 bits only when read, as a recount would give it.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/engine/ids.hpp"

namespace kueuepp::core {

/// Exact sums of milli-units (GCC's and Clang's 128-bit integer; `__extension__` keeps
/// -Wpedantic quiet about it).
__extension__ typedef __int128 WideMilli;

/// What one workload adds to its LocalQueue's tally.
struct TallyShare {
  int group = -1;  ///< -1: counted nowhere (finished, or in no ClusterQueue)
  bool reserved = false;
  bool admitted = false;  ///< reserved and admitted
  Amounts usage;          ///< the quota it holds (reserved only)
};

class LocalQueueTallies {
 public:
  /// Quota of one flavor and resource held by a group's workloads. An entry lasts while
  /// any workload holds some of that pair (zero included), as a recount would list it.
  struct Sum {
    FlavorResource fr;
    WideMilli milli = 0;
    std::int64_t holders = 0;
  };

  /// The workloads of one LocalQueue (namespace and name) in one ClusterQueue.
  struct Group {
    int cq = -1;
    std::string ns;
    std::string local_queue;
    std::int64_t members = 0;
    std::int64_t pending = 0;
    std::int64_t reserving = 0;
    std::int64_t admitted = 0;
    std::vector<Sum> reserved;  ///< in FlavorResource order
    std::vector<Sum> used;      ///< of it, the admitted ones'
  };

  /// The group of (cq, ns, local_queue), made if new. `hint` is the group the workload
  /// is counted in now: reused without a lookup when it is that one.
  int group_of(int cq, std::string_view ns, std::string_view local_queue, int hint);

  /// Moves one workload's share from `from` to `to` (either may count nowhere). A group
  /// left without members is dropped; its id may be given to another later.
  void move(const TallyShare& from, const TallyShare& to);

  /// Calls `f(group)` for every group with members, in no particular order.
  template <class F>
  void for_each(F f) const {
    for (const Group& g : groups_) {
      if (g.members > 0) f(g);
    }
  }

  /// A 128-bit sum as the 64 bits a status holds (saturated).
  static std::int64_t saturated(WideMilli v);

 private:
  void add(const TallyShare& share, int sign);
  static std::string key(int cq, std::string_view ns, std::string_view local_queue);

  std::vector<Group> groups_;
  std::vector<int> free_;
  std::unordered_map<std::string, int> ids_;
};

}  // namespace kueuepp::core
