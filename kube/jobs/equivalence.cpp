#include "kube/jobs/equivalence.hpp"

#include <charconv>
#include <optional>

#include "kube/jobs/constants.hpp"
#include "kube/jobs/job_status.hpp"
#include "kube/jobs/semantic_equal.hpp"

namespace kueuepp::kube::jobs {

namespace {

const json::value* template_spec_field(const json::value& pod_set, std::string_view field) {
  return json::find_path(pod_set, {"template", "spec", field});
}

std::optional<std::int64_t> number(const json::value* v) {
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->to_number<std::int64_t>();
}

bool pod_set_equivalent(const json::value& a, const json::value& b, bool ignore_tolerations) {
  if (number(json::find(a, "count")).value_or(0) != number(json::find(b, "count")).value_or(0)) return false;
  if (number(json::find(a, "minCount")).value_or(-1) != number(json::find(b, "minCount")).value_or(-1)) return false;
  for (std::string_view field : {"tolerations", "initContainers", "containers"}) {
    if (field == "tolerations" && ignore_tolerations) continue;
    if (!semantically_equal(template_spec_field(a, field), template_spec_field(b, field))) return false;
  }
  return true;
}

/// Kueue's expectedRunningPodSets: the Workload's pod sets with the admission's info
/// merged in, or nullopt when the Workload holds no quota or the info cannot be built.
std::optional<json::array> running_pod_sets(const client::Object& wl, const FlavorLookup& flavors,
                                            const EquivalenceOptions& options) {
  if (!wl.condition_true("QuotaReserved")) return std::nullopt;
  auto infos = pod_set_infos_from_admission(wl, flavors, options.injection);
  if (!infos) return std::nullopt;
  const json::value* sets = wl.find({"spec", "podSets"});
  if (sets == nullptr || !sets->is_array()) return std::nullopt;
  json::array running = sets->get_array();
  // CanBePartiallyAdmitted: some pod set has a minCount below its count.
  bool partial = false;
  for (const json::value& ps : running) {
    auto min = number(json::find(ps, "minCount"));
    if (min && *min < number(json::find(ps, "count")).value_or(0)) partial = true;
  }
  for (json::value& ps : running) {
    std::string_view name = json::get_string(ps, "name");
    const PodSetInfo* info = nullptr;
    for (const auto& i : *infos) {
      if (i.name == name) info = &i;
    }
    if (info == nullptr) return std::nullopt;
    json::value& tmpl = ps.as_object()["template"];
    if (!merge_into_template(tmpl, *info)) return std::nullopt;
    if (partial && json::find(ps, "minCount") != nullptr) ps.as_object()["count"] = info->count;
  }
  return running;
}

}  // namespace

bool pod_sets_equivalent(const json::value& a, const json::value& b, bool ignore_tolerations) {
  static const json::array kEmpty;
  const json::array& la = a.is_array() ? a.get_array() : kEmpty;
  const json::array& lb = b.is_array() ? b.get_array() : kEmpty;
  if (la.size() != lb.size()) return false;
  for (std::size_t i = 0; i < la.size(); ++i) {
    if (!pod_set_equivalent(la[i], lb[i], ignore_tolerations)) return false;
  }
  return true;
}

bool equivalent_to_workload(const client::Object& job, const client::Object& workload, const FlavorLookup& flavors,
                            const EquivalenceOptions& options) {
  auto job_sets = job_pod_sets(job, options.pod_sets);
  if (!job_sets) return false;
  return equivalent_pod_sets_to_workload(job, json::value(std::move(*job_sets)), job_suspended(job), workload, flavors,
                                         options);
}

bool equivalent_pod_sets_to_workload(const client::Object& owner, const json::value& owner_pod_sets, bool suspended,
                                     const client::Object& workload, const FlavorLookup& flavors,
                                     const EquivalenceOptions& options) {
  auto ref = workload.controller_reference();
  if (!ref || ref->name != owner.name()) return false;
  if (options.match_owner_uid && ref->uid != owner.uid()) return false;

  // maximumExecutionTimeSeconds: the label (a positive int32) against the spec.
  std::int64_t want_max = -1;
  if (auto text = owner.label(kMaxExecTimeSecondsLabel)) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec == std::errc() && p == text->data() + text->size() && v > 0 && v <= INT32_MAX) want_max = v;
  }
  if (workload.int_at({"spec", "maximumExecutionTimeSeconds"}).value_or(-1) != want_max) return false;

  const bool ignore_tolerations = workload.condition_true("Admitted");
  static const json::value kNull;
  const json::value* spec_sets = workload.find({"spec", "podSets"});
  const json::value& spec_value = spec_sets ? *spec_sets : kNull;

  if (auto running = running_pod_sets(workload, flavors, options)) {
    if (pod_sets_equivalent(owner_pod_sets, json::value(std::move(*running)), ignore_tolerations)) return true;
    // Admitted but not started yet: the job still looks like the Workload's spec.
    return suspended && pod_sets_equivalent(owner_pod_sets, spec_value, ignore_tolerations);
  }
  return pod_sets_equivalent(owner_pod_sets, spec_value, ignore_tolerations);
}

}  // namespace kueuepp::kube::jobs
