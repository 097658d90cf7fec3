#include "kube/jobs/workload_retention.hpp"

#include <string_view>

namespace kueuepp::kube::jobs {

namespace {

std::optional<core::Time> true_since(const client::Object& wl, std::string_view type) {
  auto c = wl.condition(type);
  if (!c || c->status != "True") return std::nullopt;
  auto t = core::parse_rfc3339(c->last_transition_time);
  if (!t) return std::nullopt;
  return *t;
}

}  // namespace

bool deactivated_by_kueue(const client::Object& wl) {
  auto evicted = wl.condition("Evicted");
  return evicted && evicted->status == "True" && evicted->reason.starts_with("DeactivatedDueTo");
}

std::optional<core::Time> finished_retention_deadline(const client::Object& wl, std::chrono::milliseconds after) {
  auto since = true_since(wl, "Finished");
  if (!since) return std::nullopt;
  return *since + after;
}

std::optional<core::Time> deactivated_retention_deadline(const client::Object& wl, std::chrono::milliseconds after) {
  // Reactivated meanwhile (spec.active back to true): the Job is the user's again.
  if (wl.bool_at({"spec", "active"}).value_or(true) || !deactivated_by_kueue(wl)) return std::nullopt;
  auto since = true_since(wl, "Evicted");
  if (!since) return std::nullopt;
  return *since + after;
}

}  // namespace kueuepp::kube::jobs
