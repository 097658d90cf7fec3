// The preemption search sorts its candidates on keys taken once per candidate
// (candidate_order); they must order exactly as candidate_before does on the records.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/engine/assignment.hpp"  // completes WorkloadRecord
#include "core/engine/preemptor.hpp"

namespace kueuepp::core {
namespace {

bool before_by_keys(const WorkloadRecord& a, const WorkloadRecord& b, int cq, Time now) {
  switch (compare_candidate_order(candidate_order(a, cq, now), candidate_order(b, cq, now))) {
    case OrderCompare::Before: return true;
    case OrderCompare::After: return false;
    case OrderCompare::SameKeys: break;
  }
  return a.uid < b.uid;  // what the search falls back to
}

TEST(CandidateOrder, OrdersAsCandidateBeforeOnRandomRecords) {
  std::mt19937 rng(7);
  // Few distinct values per field, so that ties go down to the UIDs, which share
  // prefixes of every length (0 to 12 bytes) and include ones shorter than 8 bytes.
  const std::vector<std::string> uids = {"",         "a",         "ab",        "abcdefg",   "abcdefgh",
                                         "abcdefgi", "abcdefgh0", "abcdefgh1", "abcdefgh10", "b",
                                         "ba",       "\x7f\x80",  "\xff",      "abcdefgh\xff"};
  const Time now = Time{} + std::chrono::seconds(1000);
  std::vector<WorkloadRecord> records(200);
  for (auto& w : records) {
    w.uid = uids[rng() % uids.size()];
    w.evicted = rng() % 4 == 0;
    w.cq = static_cast<int>(rng() % 3);
    w.base_priority = static_cast<std::int32_t>(rng() % 3) * 50;
    w.reserved = rng() % 5 != 0;
    w.reserved_at = Time{} + std::chrono::seconds(998 + rng() % 3);
  }
  int decided_by_keys = 0;
  for (const auto& a : records) {
    for (const auto& b : records) {
      for (int cq : {0, 2}) {
        ASSERT_EQ(before_by_keys(a, b, cq, now), candidate_before(a, b, cq, now))
            << "uids '" << a.uid << "' '" << b.uid << "'";
        if (compare_candidate_order(candidate_order(a, cq, now), candidate_order(b, cq, now)) !=
            OrderCompare::SameKeys) {
          ++decided_by_keys;
        }
      }
    }
  }
  EXPECT_GT(decided_by_keys, 0);
}

}  // namespace
}  // namespace kueuepp::core
