#include "actors/queue_gauges.hpp"

#include <optional>

#include "core/quantity.hpp"

namespace kueuepp::actors {

namespace {

/// A quantity in Kueue's AsApproximateFloat64 units (cores, bytes).
double units(std::int64_t milli) { return static_cast<double>(milli) / 1000.0; }

std::optional<double> quantity_at(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  std::string text = v->is_string() ? std::string(v->get_string()) : json::dump(*v);
  auto q = core::Quantity::parse(text);
  if (!q) return std::nullopt;
  return units(q->milli());
}

const json::array* array_in(const json::value* v, std::string_view key) {
  if (v == nullptr || !v->is_object()) return nullptr;
  const json::value* a = v->get_object().if_contains(key);
  return a != nullptr && a->is_array() ? &a->get_array() : nullptr;
}

/// Quota and limits of every flavor/resource in spec.resourceGroups, with the engine's
/// reservation and usage.
std::vector<metrics::FlavorResourceQuota> resources_of(const messages::ClusterQueueSnapshot& snap) {
  std::vector<metrics::FlavorResourceQuota> out;
  if (!snap.object) return out;
  const json::value* spec = snap.object->find({"spec"});
  const json::array* groups = array_in(spec, "resourceGroups");
  if (groups == nullptr) return out;
  auto amount = [](const std::vector<core::ClusterQueueView::Usage>& list, const std::string& f,
                   const std::string& r) {
    for (const auto& u : list) {
      if (u.flavor == f && u.resource == r) return units(u.total_milli);
    }
    return 0.0;
  };
  for (const auto& group : *groups) {
    const json::array* flavors = array_in(&group, "flavors");
    if (flavors == nullptr) continue;
    for (const auto& flavor : *flavors) {
      if (!flavor.is_object()) continue;
      const json::value* fname = flavor.get_object().if_contains("name");
      const json::array* resources = array_in(&flavor, "resources");
      if (fname == nullptr || !fname->is_string() || resources == nullptr) continue;
      for (const auto& res : *resources) {
        if (!res.is_object()) continue;
        const json::object& r = res.get_object();
        const json::value* rname = r.if_contains("name");
        if (rname == nullptr || !rname->is_string()) continue;
        metrics::FlavorResourceQuota q;
        q.flavor = std::string(fname->get_string());
        q.resource = std::string(rname->get_string());
        q.nominal = quantity_at(r.if_contains("nominalQuota")).value_or(0);
        q.borrowing_limit = quantity_at(r.if_contains("borrowingLimit"));
        q.lending_limit = quantity_at(r.if_contains("lendingLimit"));
        q.reservation = amount(snap.view.reservation, q.flavor, q.resource);
        q.usage = amount(snap.view.usage, q.flavor, q.resource);
        out.push_back(std::move(q));
      }
    }
  }
  return out;
}

metrics::ClusterQueueStatus status_of(const messages::ClusterQueueSnapshot& snap) {
  if (snap.object && snap.object->find({"metadata", "deletionTimestamp"}) != nullptr) {
    return metrics::ClusterQueueStatus::Terminating;
  }
  return snap.view.active ? metrics::ClusterQueueStatus::Active : metrics::ClusterQueueStatus::Pending;
}

metrics::ConditionStatus active_of(const messages::ObjectPtr& lq) {
  if (!lq) return metrics::ConditionStatus::Unknown;
  auto c = lq->condition("Active");
  if (!c) return metrics::ConditionStatus::Unknown;
  if (c->status == "True") return metrics::ConditionStatus::True;
  if (c->status == "False") return metrics::ConditionStatus::False;
  return metrics::ConditionStatus::Unknown;
}

metrics::LocalQueueGauges local_queue_gauges(const std::string& cq, const messages::LocalQueueCounts& lq) {
  metrics::LocalQueueGauges g;
  g.cluster_queue = cq;
  g.active = active_of(lq.object);
  g.pending_active = lq.counts.pending;
  g.reserving_active = lq.counts.reserving;
  g.admitted_active = lq.counts.admitted;
  g.finished = lq.counts.finished;
  for (const auto& [fr, milli] : lq.counts.reserved) {
    metrics::FlavorResourceAmounts a;
    a.flavor = fr.first;
    a.resource = fr.second;
    a.reservation = units(milli);
    auto used = lq.counts.used.find(fr);
    a.usage = used == lq.counts.used.end() ? 0 : units(used->second);
    g.resources.push_back(std::move(a));
  }
  return g;
}

}  // namespace

messages::QueueGauges queue_gauges(const messages::ClusterQueueSnapshot& snap) {
  messages::QueueGauges out;
  out.cluster_queue = snap.view.name;
  metrics::ClusterQueueGauges& g = out.gauges;
  if (snap.object) g.cohort = std::string(snap.object->string_at({"spec", "cohortName"}));
  g.root_cohort = g.cohort.empty() ? std::string() : snap.root_cohort;
  g.status = status_of(snap);
  // Kueue counts every pending workload as inadmissible while the queue is not active.
  if (snap.view.active) {
    g.pending_active = static_cast<std::int64_t>(snap.view.pending_active);
    g.pending_inadmissible = static_cast<std::int64_t>(snap.view.pending_inadmissible);
  } else {
    g.pending_inadmissible = static_cast<std::int64_t>(snap.view.pending);
  }
  g.reserving_active = static_cast<std::int64_t>(snap.view.reserving);
  g.admitted_active = static_cast<std::int64_t>(snap.view.admitted);
  g.finished = snap.finished;
  for (const auto& [reason, count] : snap.pending_reasons) g.unadmitted.push_back({reason, "", count});
  g.resources = resources_of(snap);
  // pending_resources stays empty: the engine does not sum pending requests per
  // resource, and a made-up zero would mislead (the series is simply absent).
  if (snap.view.weighted_share) g.weighted_share = static_cast<double>(*snap.view.weighted_share);
  for (const auto& lq : snap.local_queues) {
    out.local_queues.push_back({lq.ns, lq.name, local_queue_gauges(snap.view.name, lq)});
  }
  return out;
}

}  // namespace kueuepp::actors
