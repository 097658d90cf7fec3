#include "actors/cohort_view.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "core/quantity.hpp"

namespace kueuepp::actors {

namespace {

std::int64_t int_at(const json::object& o, std::string_view key) {
  const json::value* v = json::find(o, key);
  return v != nullptr && v->is_int64() ? v->as_int64() : 0;
}

using FlavorResource = std::pair<std::string, std::string>;

FlavorResource key_of(const json::object& line) {
  return {std::string(json::get_string(line, "flavor")), std::string(json::get_string(line, "resource"))};
}

/// Unused nominal quota the queue may lend: nominal minus what it reserves, capped by
/// its lendingLimit.
std::int64_t lendable_unused(const json::object& line) {
  const std::int64_t nominal = int_at(line, "nominalMilli");
  std::int64_t unused = std::max<std::int64_t>(0, nominal - int_at(line, "reservedMilli"));
  if (json::find(line, "lendingLimitMilli") != nullptr) unused = std::min(unused, int_at(line, "lendingLimitMilli"));
  return unused;
}

json::array* lines_of(json::object& report) {
  json::value* v = json::find(report, "resources");
  return v != nullptr && v->is_array() ? &v->as_array() : nullptr;
}

/// Sets lentMilli and lent on every line of the tree's queues.
void attribute_lending(std::vector<json::object*>& queues) {
  std::map<FlavorResource, std::int64_t> borrowed;
  std::map<FlavorResource, std::int64_t> lendable;
  for (json::object* q : queues) {
    json::array* lines = lines_of(*q);
    if (lines == nullptr) continue;
    for (auto& v : *lines) {
      if (!v.is_object()) continue;
      const json::object& line = v.as_object();
      borrowed[key_of(line)] += int_at(line, "borrowedMilli");
      lendable[key_of(line)] += lendable_unused(line);
    }
  }
  for (json::object* q : queues) {
    json::array* lines = lines_of(*q);
    if (lines == nullptr) continue;
    for (auto& v : *lines) {
      if (!v.is_object()) continue;
      json::object& line = v.as_object();
      const FlavorResource key = key_of(line);
      const std::int64_t total = lendable[key];
      std::int64_t lent = 0;
      if (total > 0) {
        const std::int64_t lent_total = std::min(borrowed[key], total);
        // Not overflowing: milli-units of a cluster's quota fit well within 2^31 * 2^31.
        lent = static_cast<std::int64_t>(static_cast<long double>(lendable_unused(line)) * lent_total / total);
      }
      line["lentMilli"] = lent;
      const json::value* binary = json::find(line, "binary");
      const auto format = binary != nullptr && binary->is_bool() && binary->as_bool() ? core::Quantity::Format::BinarySI
                                                                                        : core::Quantity::Format::DecimalSI;
      line["lent"] = core::Quantity::from_milli(lent, format).to_string();
    }
  }
}

}  // namespace

json::object cohort_view(std::vector<json::object> reports) {
  std::map<std::string, std::vector<json::object*>> trees;
  for (auto& r : reports) {
    std::string root(json::get_string(r, "rootCohort"));
    // A ClusterQueue without a cohort is its own tree, named by the queue.
    std::string tree = root.empty() ? "clusterqueue:" + std::string(json::get_string(r, "name")) : "cohort:" + root;
    trees[tree].push_back(&r);
  }
  json::array out;
  std::size_t queues = 0;
  for (auto& [tree, members] : trees) {
    std::sort(members.begin(), members.end(), [](const json::object* a, const json::object* b) {
      return json::get_string(*a, "name") < json::get_string(*b, "name");
    });
    attribute_lending(members);
    json::object t;
    t["root"] = json::get_string(*members.front(), "rootCohort");
    json::array cqs;
    for (json::object* q : members) cqs.push_back(std::move(*q));
    queues += cqs.size();
    t["clusterQueues"] = std::move(cqs);
    out.push_back(std::move(t));
  }
  json::object o;
  o["clusterQueueCount"] = queues;
  o["trees"] = std::move(out);
  return o;
}

}  // namespace kueuepp::actors
