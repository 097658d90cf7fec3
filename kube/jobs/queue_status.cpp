#include "kube/jobs/queue_status.hpp"

#include <algorithm>
#include <vector>

#include "kube/jobs/conditions_list.hpp"
#include "kube/jobs/resource_quantity.hpp"
#include "kube/jobs/semantic_equal.hpp"

namespace kueuepp::kube::jobs {

namespace {

struct FlavorResources {
  std::string flavor;
  std::vector<json::object> resources;
};

/// Kueue lists every flavor in resource-group order, its resources sorted by name.
json::value flavors_json(std::vector<FlavorResources> flavors) {
  json::array out;
  for (auto& f : flavors) {
    std::sort(f.resources.begin(), f.resources.end(), [](const json::object& a, const json::object& b) {
      return a.at("name").get_string() < b.at("name").get_string();
    });
    json::array resources;
    for (auto& r : f.resources) resources.push_back(std::move(r));
    out.push_back(json::object{{"name", f.flavor}, {"resources", std::move(resources)}});
  }
  // Kueue's omitempty: no flavors, no field (null clears a stale one in a merge patch).
  return out.empty() ? json::value(nullptr) : json::value(std::move(out));
}

FlavorResources& flavor_entry(std::vector<FlavorResources>& flavors, const std::string& name) {
  for (auto& f : flavors) {
    if (f.flavor == name) return f;
  }
  flavors.push_back(FlavorResources{name, {}});
  return flavors.back();
}

json::value cq_usage_json(const std::vector<core::ClusterQueueView::Usage>& usage, bool has_cohort) {
  std::vector<FlavorResources> flavors;
  for (const auto& u : usage) {
    json::object r;
    r["name"] = u.resource;
    r["total"] = resource_quantity(u.resource, u.total_milli);
    r["borrowed"] = resource_quantity(u.resource, has_cohort ? u.borrowed_milli : 0);
    flavor_entry(flavors, u.flavor).resources.push_back(std::move(r));
  }
  return flavors_json(std::move(flavors));
}

json::value lq_usage_json(const core::ClusterQueueView& cq,
                          const std::map<std::pair<std::string, std::string>, std::int64_t>& amounts) {
  std::vector<FlavorResources> flavors;
  for (const auto& u : cq.reservation) {
    auto it = amounts.find({u.flavor, u.resource});
    json::object r;
    r["name"] = u.resource;
    r["total"] = resource_quantity(u.resource, it == amounts.end() ? 0 : it->second);
    flavor_entry(flavors, u.flavor).resources.push_back(std::move(r));
  }
  return flavors_json(std::move(flavors));
}

json::value active_conditions(const client::Object& queue, bool active, std::string reason, std::string message,
                              core::Time now) {
  std::optional<std::int64_t> generation;
  if (queue.generation() > 0) generation = queue.generation();
  return conditions_after(
      queue, {client::Condition{"Active", active ? "True" : "False", std::move(reason), std::move(message), "", generation}},
      now);
}

}  // namespace

json::value cluster_queue_status(const core::ClusterQueueView& view, const client::Object& cq, core::Time now) {
  const bool has_cohort = !cq.string_at({"spec", "cohortName"}).empty();
  json::object status;
  status["flavorsReservation"] = cq_usage_json(view.reservation, has_cohort);
  status["flavorsUsage"] = cq_usage_json(view.usage, has_cohort);
  status["reservingWorkloads"] = static_cast<std::int64_t>(view.reserving);
  status["admittedWorkloads"] = static_cast<std::int64_t>(view.admitted);
  status["pendingWorkloads"] = static_cast<std::int64_t>(view.pending);
  std::string reason = view.active ? "Ready" : (view.inactive_reason.empty() ? "Unknown" : view.inactive_reason);
  std::string message = view.active ? "Can admit new workloads"
                                    : (view.inactive_message.empty() ? "Can't admit new workloads." : view.inactive_message);
  status["conditions"] = active_conditions(cq, view.active, std::move(reason), std::move(message), now);
  if (view.weighted_share) {
    status["fairSharing"] = json::object{{"weightedShare", *view.weighted_share}};
  } else {
    status["fairSharing"] = nullptr;
  }
  return status;
}

json::value local_queue_status(const client::Object& lq, const LocalQueueView& view,
                               const core::ClusterQueueView* cq, core::Time now) {
  const std::string_view stop_policy = lq.string_at({"spec", "stopPolicy"});
  const bool stopped = !stop_policy.empty() && stop_policy != "None";
  json::object status;
  status["pendingWorkloads"] = stopped ? 0 : view.pending;
  status["reservingWorkloads"] = cq ? view.reserving : 0;
  status["admittedWorkloads"] = cq ? view.admitted : 0;
  status["flavorsReservation"] = cq ? lq_usage_json(*cq, view.reserved) : json::value(nullptr);
  status["flavorsUsage"] = cq ? lq_usage_json(*cq, view.used) : json::value(nullptr);
  static constexpr std::string_view kCantSubmit = "Can't submit new workloads to clusterQueue";
  if (stopped) {
    status["conditions"] = active_conditions(lq, false, "Stopped", "LocalQueue is stopped", now);
  } else if (cq == nullptr) {
    status["conditions"] = active_conditions(lq, false, "ClusterQueueDoesNotExist", std::string(kCantSubmit), now);
  } else if (!cq->active) {
    status["conditions"] = active_conditions(lq, false, "ClusterQueueIsInactive", std::string(kCantSubmit), now);
  } else {
    status["conditions"] = active_conditions(lq, true, "Ready", "Can submit new workloads to localQueue", now);
  }
  return status;
}

bool status_unchanged(const json::value* current_status, const json::value& desired) {
  if (!desired.is_object()) return semantically_equal(current_status, &desired);
  for (const auto& [key, value] : desired.get_object()) {
    const json::value* have = current_status ? json::find(*current_status, key) : nullptr;
    if (!semantically_equal(have, &value)) return false;
  }
  return true;
}

std::optional<json::value> queue_status_patch(const client::Object& queue, const json::value& desired) {
  if (status_unchanged(queue.find({"status"}), desired)) return std::nullopt;
  return json::value(json::object{{"status", desired}});
}

}  // namespace kueuepp::kube::jobs
