#include "core/engine/queue_views.hpp"

#include "core/quantity.hpp"

namespace kueuepp::core {

void add_tally(LocalQueueView& view, const LocalQueueTally& tally) {
  view.pending += tally.pending;
  view.reserving += tally.reserving;
  view.admitted += tally.admitted;
  auto add = [](std::map<std::pair<std::string, std::string>, std::int64_t>& to, const UsageItem& u) {
    auto& v = to[{std::string(u.flavor), std::string(u.resource)}];
    v = sat_add(v, u.milli);
  };
  for (const auto& u : tally.reserved) add(view.reserved, u);
  for (const auto& u : tally.used) add(view.used, u);
}

}  // namespace kueuepp::core
