#include "actors/queue_report.hpp"

#include <map>
#include <tuple>

#include "core/quantity.hpp"

namespace kueuepp::actors {

namespace {

struct Line {
  std::optional<std::int64_t> nominal;
  std::optional<std::int64_t> borrowing_limit;
  std::optional<std::int64_t> lending_limit;
  std::int64_t reserved = 0;
  std::int64_t used = 0;
  std::int64_t borrowed = 0;
  /// How its quantities print: as the nominal quota was written, else binary for memory.
  std::optional<core::Quantity::Format> format;
};

using Lines = std::map<std::pair<std::string, std::string>, Line>;

std::optional<core::Quantity> quantity_at(const json::value& resource, std::string_view key) {
  const json::value* v = json::find(resource, key);
  if (v == nullptr) return std::nullopt;
  std::string text;
  if (v->is_string()) {
    text = std::string(v->as_string());
  } else if (v->is_int64()) {
    text = std::to_string(v->as_int64());
  } else {
    return std::nullopt;
  }
  auto q = core::Quantity::parse(text);
  if (!q) return std::nullopt;
  return *q;
}

std::optional<std::int64_t> milli_at(const json::value& resource, std::string_view key) {
  auto q = quantity_at(resource, key);
  return q ? std::optional<std::int64_t>(q->milli()) : std::nullopt;
}

/// Nominal quota and limits from spec.resourceGroups[].flavors[].resources[].
void add_quotas(Lines& lines, const messages::ObjectPtr& object) {
  if (!object) return;
  const json::value* groups = object->find({"spec", "resourceGroups"});
  if (groups == nullptr || !groups->is_array()) return;
  for (const auto& group : groups->as_array()) {
    const json::value* flavors = json::find(group, "flavors");
    if (flavors == nullptr || !flavors->is_array()) continue;
    for (const auto& flavor : flavors->as_array()) {
      std::string flavor_name(json::get_string(flavor, "name"));
      const json::value* resources = json::find(flavor, "resources");
      if (resources == nullptr || !resources->is_array()) continue;
      for (const auto& resource : resources->as_array()) {
        Line& line = lines[{flavor_name, std::string(json::get_string(resource, "name"))}];
        auto nominal = quantity_at(resource, "nominalQuota");
        if (nominal) {
          line.nominal = nominal->milli();
          line.format = nominal->format();
        }
        line.borrowing_limit = milli_at(resource, "borrowingLimit");
        line.lending_limit = milli_at(resource, "lendingLimit");
      }
    }
  }
}

core::Quantity::Format format_of(const Line& line, std::string_view resource) {
  if (line.format && *line.format != core::Quantity::Format::DecimalExponent) return *line.format;
  const bool bytes = resource == "memory" || resource.ends_with("storage") || resource.starts_with("hugepages-");
  return bytes ? core::Quantity::Format::BinarySI : core::Quantity::Format::DecimalSI;
}

json::array lines_json(const Lines& lines) {
  json::array out;
  for (const auto& [key, line] : lines) {
    const core::Quantity::Format format = format_of(line, key.second);
    auto quantity_json = [format](std::int64_t milli) {
      return json::value(core::Quantity::from_milli(milli, format).to_string());
    };
    json::object o;
    o["flavor"] = key.first;
    o["resource"] = key.second;
    // Milli-units for arithmetic and charts; quantities for reading.
    if (line.nominal) o["nominalMilli"] = *line.nominal;
    if (line.borrowing_limit) o["borrowingLimitMilli"] = *line.borrowing_limit;
    if (line.lending_limit) o["lendingLimitMilli"] = *line.lending_limit;
    o["reservedMilli"] = line.reserved;
    o["usedMilli"] = line.used;
    o["borrowedMilli"] = line.borrowed;
    if (format == core::Quantity::Format::BinarySI) o["binary"] = true;
    if (line.nominal) o["nominal"] = quantity_json(*line.nominal);
    o["reserved"] = quantity_json(line.reserved);
    o["used"] = quantity_json(line.used);
    o["borrowed"] = quantity_json(line.borrowed);
    out.push_back(std::move(o));
  }
  return out;
}

json::array history_json(const QueueHistory& history) {
  json::array out;
  for (const QueueSample& s : history.samples()) {
    json::object o;
    o["t"] = std::chrono::duration_cast<std::chrono::seconds>(s.at.time_since_epoch()).count();
    o["pending"] = s.pending;
    o["reserving"] = s.reserving;
    o["admitted"] = s.admitted;
    json::object used;
    for (const auto& [resource, milli] : s.used_milli) used[resource] = milli;
    o["usedMilli"] = std::move(used);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

QueueSample sample_of(const messages::ClusterQueueSnapshot& snap, core::Time now) {
  QueueSample s;
  s.at = now;
  s.pending = static_cast<std::int64_t>(snap.view.pending);
  s.reserving = static_cast<std::int64_t>(snap.view.reserving);
  s.admitted = static_cast<std::int64_t>(snap.view.admitted);
  for (const auto& u : snap.view.reservation) s.used_milli[u.resource] += u.total_milli;
  return s;
}

json::object queue_report(const std::string& name, const messages::ClusterQueueSnapshot& snap,
                          const QueueHistory* history) {
  Lines lines;
  add_quotas(lines, snap.object);
  for (const auto& u : snap.view.reservation) {
    Line& line = lines[{u.flavor, u.resource}];
    line.reserved = u.total_milli;
    line.borrowed = u.borrowed_milli;
  }
  for (const auto& u : snap.view.usage) lines[{u.flavor, u.resource}].used = u.total_milli;

  json::object o;
  o["name"] = name;
  o["cohort"] = snap.cohort_path.empty() ? std::string() : snap.cohort_path.front();
  json::array path;
  for (const auto& c : snap.cohort_path) path.emplace_back(c);
  o["cohortPath"] = std::move(path);
  o["rootCohort"] = snap.root_cohort;
  o["active"] = snap.view.active;
  if (!snap.view.active && !snap.view.inactive_reason.empty()) {
    o["inactiveReason"] = snap.view.inactive_reason;
    o["inactiveMessage"] = snap.view.inactive_message;
  }
  o["pending"] = snap.view.pending;
  o["reserving"] = snap.view.reserving;
  o["admitted"] = snap.view.admitted;
  o["finished"] = snap.finished;
  json::object reasons;
  for (const auto& [reason, count] : snap.pending_reasons) reasons[reason] = count;
  o["pendingReasons"] = std::move(reasons);
  json::array lqs;
  for (const auto& lq : snap.local_queues) {
    lqs.push_back(json::object{{"namespace", lq.ns},
                               {"name", lq.name},
                               {"pending", lq.counts.pending},
                               {"reserving", lq.counts.reserving},
                               {"admitted", lq.counts.admitted}});
  }
  o["localQueues"] = std::move(lqs);
  o["resources"] = lines_json(lines);
  if (history != nullptr) o["history"] = history_json(*history);
  return o;
}

}  // namespace kueuepp::actors
