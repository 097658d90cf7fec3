#include "kube/conversion/topology_assignment_encoding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kueuepp::kube::conversion {
namespace {

struct Domain {
  std::vector<std::string> values;
  std::int64_t count = 0;
};

Expected<std::int64_t> integer(const json::value& v, const std::string& where) {
  if (const auto* i = v.if_int64()) return *i;
  if (const auto* u = v.if_uint64(); u != nullptr && *u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(*u);
  return fail(fmt::format("{} is {}, want an integer", where, json::dump(v)));
}

Expected<std::vector<std::string>> strings(const json::value* v, const std::string& where) {
  std::vector<std::string> out;
  if (v == nullptr || v->is_null()) return out;
  const auto* array = v->if_array();
  if (array == nullptr) return fail(fmt::format("{} is {}, want a list of strings", where, json::dump(*v)));
  for (const auto& item : *array) {
    const auto* s = item.if_string();
    if (s == nullptr) return fail(fmt::format("{} holds {}, want strings only", where, json::dump(item)));
    out.emplace_back(*s);
  }
  return out;
}

json::array to_json(const std::vector<std::string>& values) {
  json::array out;
  out.reserve(values.size());
  for (const auto& v : values) out.emplace_back(json::string(v));
  return out;
}

// One level's values as Kueue packs them: one universal value when all are equal, else
// roots between the longest common prefix and suffix (trimmed so they never overlap).
json::object encode_level(const std::vector<std::string_view>& values) {
  std::string_view prefix = values.front();
  std::string_view suffix = values.front();
  std::size_t shortest = values.front().size();
  std::size_t longest = shortest;
  for (const auto s : values) {
    shortest = std::min(shortest, s.size());
    longest = std::max(longest, s.size());
    std::size_t p = 0;
    while (p < prefix.size() && p < s.size() && prefix[p] == s[p]) ++p;
    prefix = prefix.substr(0, p);
    std::size_t q = 0;
    while (q < suffix.size() && q < s.size() && suffix[suffix.size() - 1 - q] == s[s.size() - 1 - q]) ++q;
    suffix = suffix.substr(suffix.size() - q);
  }
  json::object level;
  if (prefix.size() == longest) {
    level["universal"] = json::string(prefix);
    return level;
  }
  if (prefix.size() + suffix.size() > shortest) prefix = prefix.substr(0, shortest - suffix.size());
  json::object individual;
  if (!prefix.empty()) individual["prefix"] = json::string(prefix);
  if (!suffix.empty()) individual["suffix"] = json::string(suffix);
  json::array roots;
  roots.reserve(values.size());
  for (const auto s : values) roots.emplace_back(json::string(s.substr(prefix.size(), s.size() - prefix.size() - suffix.size())));
  individual["roots"] = std::move(roots);
  level["individual"] = std::move(individual);
  return level;
}

Expected<std::vector<Domain>> read_domains(const json::object& assignment, std::size_t levels, const std::string& where) {
  std::vector<Domain> out;
  const auto* domains = json::find(assignment, "domains");
  if (domains == nullptr || domains->is_null()) return out;
  const auto* array = domains->if_array();
  if (array == nullptr) return fail(fmt::format("{}.domains is {}, want a list", where, json::dump(*domains)));
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto at = fmt::format("{}.domains[{}]", where, i);
    const auto* domain = (*array)[i].if_object();
    if (domain == nullptr) return fail(at + " is not an object");
    auto values = strings(json::find(*domain, "values"), at + ".values");
    if (!values) return unexpected(values.error());
    if (values->size() != levels) return fail(fmt::format("{}.values has {} values for {} levels", at, values->size(), levels));
    const auto* count_value = json::find(*domain, "count");
    std::int64_t count = 0;
    if (count_value != nullptr) {
      auto c = integer(*count_value, at + ".count");
      if (!c) return unexpected(c.error());
      count = *c;
    }
    out.push_back({std::move(*values), count});
  }
  return out;
}

Expected<std::string> value_at_index(const json::value& level, std::size_t index, const std::string& where) {
  const auto* object = level.if_object();
  if (object == nullptr) return fail(where + " is not an object");
  if (const auto* universal = json::find(*object, "universal"); universal != nullptr && !universal->is_null()) {
    const auto* s = universal->if_string();
    if (s == nullptr) return fail(where + ".universal is not a string");
    return std::string(*s);
  }
  const auto* individual = json::find(*object, "individual");
  if (individual == nullptr || !individual->is_object()) return fail(where + " has neither universal nor individual values");
  auto roots = strings(json::find(*individual, "roots"), where + ".individual.roots");
  if (!roots) return unexpected(roots.error());
  if (index >= roots->size()) return fail(fmt::format("{}.individual.roots has {} values, fewer than domainCount", where, roots->size()));
  return std::string(json::get_string(*individual, "prefix")) + (*roots)[index] + std::string(json::get_string(*individual, "suffix"));
}

Expected<std::int64_t> count_at_index(const json::object& slice, std::size_t index, const std::string& where) {
  const auto* counts = json::find(slice, "podCounts");
  if (counts == nullptr || !counts->is_object()) return fail(where + ".podCounts is not an object");
  if (const auto* universal = json::find(*counts, "universal"); universal != nullptr && !universal->is_null()) {
    return integer(*universal, where + ".podCounts.universal");
  }
  const auto* individual = json::find(*counts, "individual");
  const auto* array = individual != nullptr ? individual->if_array() : nullptr;
  if (array == nullptr) return fail(where + ".podCounts has neither universal nor individual counts");
  if (index >= array->size()) return fail(fmt::format("{}.podCounts.individual has {} counts, fewer than domainCount", where, array->size()));
  return integer((*array)[index], fmt::format("{}.podCounts.individual[{}]", where, index));
}

}  // namespace

Expected<json::object> encode_topology_slices(const json::object& v1beta1_assignment, const std::string& where) {
  auto levels = strings(json::find(v1beta1_assignment, "levels"), where + ".levels");
  if (!levels) return unexpected(levels.error());
  auto domains = read_domains(v1beta1_assignment, levels->size(), where);
  if (!domains) return unexpected(domains.error());

  json::object out;
  if (const auto* l = json::find(v1beta1_assignment, "levels"); l != nullptr && !l->is_null()) out["levels"] = to_json(*levels);
  if (domains->empty()) return out;

  json::object slice;
  slice["domainCount"] = static_cast<std::int64_t>(domains->size());
  json::array per_level;
  for (std::size_t level = 0; level < levels->size(); ++level) {
    std::vector<std::string_view> values;
    values.reserve(domains->size());
    for (const auto& d : *domains) values.emplace_back(d.values[level]);
    per_level.emplace_back(encode_level(values));
  }
  slice["valuesPerLevel"] = std::move(per_level);
  const bool same_count = std::all_of(domains->begin(), domains->end(), [&](const Domain& d) { return d.count == domains->front().count; });
  json::object counts;
  if (same_count) {
    counts["universal"] = domains->front().count;
  } else {
    json::array individual;
    for (const auto& d : *domains) individual.emplace_back(d.count);
    counts["individual"] = std::move(individual);
  }
  slice["podCounts"] = std::move(counts);
  out["slices"] = json::array{std::move(slice)};
  return out;
}

Expected<json::object> decode_topology_slices(const json::object& v1beta2_assignment, const std::string& where) {
  auto levels = strings(json::find(v1beta2_assignment, "levels"), where + ".levels");
  if (!levels) return unexpected(levels.error());
  json::array domains;
  if (const auto* slices_value = json::find(v1beta2_assignment, "slices"); slices_value != nullptr && !slices_value->is_null()) {
    const auto* slices = slices_value->if_array();
    if (slices == nullptr) return fail(where + ".slices is not a list");
    for (std::size_t s = 0; s < slices->size(); ++s) {
      const auto at = fmt::format("{}.slices[{}]", where, s);
      const auto* slice = (*slices)[s].if_object();
      if (slice == nullptr) return fail(at + " is not an object");
      std::int64_t count = 0;
      if (const auto* c = json::find(*slice, "domainCount")) {
        auto n = integer(*c, at + ".domainCount");
        if (!n) return unexpected(n.error());
        count = *n;
      }
      if (count < 0 || count > 1'000'000) return fail(fmt::format("{}.domainCount {} is out of range", at, count));
      const auto* per_level_value = json::find(*slice, "valuesPerLevel");
      const auto* per_level = per_level_value != nullptr ? per_level_value->if_array() : nullptr;
      if (count > 0 && (per_level == nullptr || per_level->size() != levels->size())) {
        return fail(fmt::format("{}.valuesPerLevel does not have one entry per level ({})", at, levels->size()));
      }
      for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
        json::array values;
        for (std::size_t level = 0; level < levels->size(); ++level) {
          auto v = value_at_index((*per_level)[level], i, fmt::format("{}.valuesPerLevel[{}]", at, level));
          if (!v) return unexpected(v.error());
          values.emplace_back(json::string(*v));
        }
        auto pods = count_at_index(*slice, i, at);
        if (!pods) return unexpected(pods.error());
        json::object domain;
        domain["values"] = std::move(values);
        domain["count"] = *pods;
        domains.emplace_back(std::move(domain));
      }
    }
  }
  json::object out;
  if (const auto* l = json::find(v1beta2_assignment, "levels"); l != nullptr && !l->is_null()) out["levels"] = to_json(*levels);
  out["domains"] = std::move(domains);
  return out;
}

}  // namespace kueuepp::kube::conversion
