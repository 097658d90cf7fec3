#include "kube/webhook/kueue_kind_webhooks.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "core/quantity.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/webhook/json_patch.hpp"
#include "kube/webhook/object_fields.hpp"

namespace kueuepp::kube::webhook {

namespace {

constexpr std::string_view kNegative = "must be greater than or equal to 0";
constexpr std::string_view kLendingLimit = "must be less than or equal to the nominalQuota";

const json::array* array_of(const json::value* v) { return v != nullptr && v->is_array() ? &v->get_array() : nullptr; }
const json::array* array_at(const json::value& v, std::string_view key) {
  return v.is_object() ? array_of(v.get_object().if_contains(key)) : nullptr;
}
std::string_view string_member(const json::value& v, std::string_view key) {
  if (!v.is_object()) return {};
  const json::value* m = v.get_object().if_contains(key);
  return m != nullptr && m->is_string() ? std::string_view(m->get_string()) : std::string_view();
}

/// A quantity as written (a JSON string or number); nullopt when it does not parse (the
/// CRD schema refuses those before any webhook is called).
std::optional<core::Quantity> quantity_of(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  std::string text;
  if (v->is_string()) {
    text = std::string(v->get_string());
  } else if (v->is_number()) {
    text = json::dump(*v);
  } else {
    return std::nullopt;
  }
  auto q = core::Quantity::parse(text);
  if (!q) return std::nullopt;
  return *q;
}

struct GroupsConfig {
  bool has_parent = false;
  bool enforce_nominal_over_lending = false;
  bool is_cohort = false;
};

void check_not_negative(const core::Quantity& q, const FieldPath& path, FieldErrors& out) {
  if (q.milli() < 0) out.push_back(invalid_string(path, q.to_string(), std::string(kNegative)));
}

void check_limit_needs_parent(const core::Quantity& q, const GroupsConfig& config, const FieldPath& path,
                              FieldErrors& out) {
  if (config.has_parent) return;
  out.push_back(invalid_string(path, q.to_string(),
                               fmt::format("must be nil when {} is empty", config.is_cohort ? "parent" : "cohort")));
}

/// validateFlavorQuotas.
void check_flavor_quotas(const json::value& flavor, const std::vector<std::string>& covered, const GroupsConfig& config,
                         const FieldPath& path, FieldErrors& out) {
  const json::array* resources = array_at(flavor, "resources");
  if (resources == nullptr) return;
  for (std::size_t i = 0; i < resources->size() && i < covered.size(); ++i) {
    const json::value& r = (*resources)[i];
    const FieldPath rp = path.child("resources").index(i);
    const std::string_view name = string_member(r, "name");
    if (name != covered[i]) out.push_back(invalid_string(rp.child("name"), name, "must match the name in coveredResources"));
    if (!r.is_object()) continue;
    const json::object& o = r.get_object();
    auto nominal = quantity_of(o.if_contains("nominalQuota"));
    if (nominal) check_not_negative(*nominal, rp.child("nominalQuota"), out);
    if (auto borrowing = quantity_of(o.if_contains("borrowingLimit"))) {
      check_limit_needs_parent(*borrowing, config, rp.child("borrowingLimit"), out);
      check_not_negative(*borrowing, rp.child("borrowingLimit"), out);
    }
    if (auto lending = quantity_of(o.if_contains("lendingLimit"))) {
      const FieldPath lp = rp.child("lendingLimit");
      check_not_negative(*lending, lp, out);
      check_limit_needs_parent(*lending, config, lp, out);
      if (config.enforce_nominal_over_lending && *lending > nominal.value_or(core::Quantity{})) {
        out.push_back(invalid_string(lp, lending->to_string(), std::string(kLendingLimit)));
      }
    }
  }
}

/// validateResourceGroups.
void check_resource_groups(const json::array* groups, const GroupsConfig& config, const FieldPath& path,
                           FieldErrors& out) {
  if (groups == nullptr) return;
  std::set<std::string, std::less<>> seen_resources;
  std::set<std::string, std::less<>> seen_flavors;
  for (std::size_t i = 0; i < groups->size(); ++i) {
    const json::value& group = (*groups)[i];
    const FieldPath gp = path.index(i);
    std::vector<std::string> covered;
    if (const json::array* names = array_at(group, "coveredResources")) {
      for (std::size_t j = 0; j < names->size(); ++j) {
        std::string name = (*names)[j].is_string() ? std::string((*names)[j].get_string()) : std::string();
        if (!seen_resources.insert(name).second) out.push_back(duplicate(gp.child("coveredResources").index(j), go_quote(name)));
        covered.push_back(std::move(name));
      }
    }
    if (const json::array* flavors = array_at(group, "flavors")) {
      for (std::size_t j = 0; j < flavors->size(); ++j) {
        const FieldPath fp = gp.child("flavors").index(j);
        check_flavor_quotas((*flavors)[j], covered, config, fp, out);
        std::string name(string_member((*flavors)[j], "name"));
        if (!seen_flavors.insert(name).second) out.push_back(duplicate(fp.child("name"), go_quote(name)));
      }
    }
  }
}

/// validateTotalFlavors, validateTotalCoveredResources, validateFlavorResourceCombinations.
void check_totals(const json::array* groups, const FieldPath& path, FieldErrors& out) {
  if (groups == nullptr) return;
  std::size_t flavors = 0;
  std::size_t covered = 0;
  for (const auto& g : *groups) {
    if (const json::array* f = array_at(g, "flavors")) flavors += f->size();
    if (const json::array* c = array_at(g, "coveredResources")) covered += c->size();
  }
  if (flavors > 256) {
    out.push_back(invalid_int(path, static_cast<std::int64_t>(flavors),
                              fmt::format("total number of flavors across all resourceGroups must be ≤ 256, got {}", flavors)));
  }
  if (covered > 256) {
    out.push_back(invalid_int(
        path, static_cast<std::int64_t>(covered),
        fmt::format("total number of covered resources across all resourceGroups must be ≤ 256, got {}", covered)));
  }
  for (std::size_t i = 0; i < groups->size(); ++i) {
    std::size_t combinations = 0;
    if (const json::array* f = array_at((*groups)[i], "flavors")) {
      for (const auto& flavor : *f) {
        if (const json::array* r = array_at(flavor, "resources")) combinations += r->size();
      }
    }
    if (combinations > 512) {
      out.push_back(invalid_int(
          path.index(i), static_cast<std::int64_t>(combinations),
          fmt::format("number of flavor-resource combinations in a resourceGroup must be ≤ 512, got {}", combinations)));
    }
  }
}

/// validateFairSharing: the weight, when set, is not negative.
void check_fair_sharing(const json::value& spec, const FieldPath& path, FieldErrors& out) {
  const json::value* weight = at_path(spec, {"fairSharing", "weight"});
  auto q = quantity_of(weight);
  if (q && q->milli() < 0) out.push_back(invalid_string(path, q->to_string(), std::string(kNegative)));
}

/// validatePreemption: reclaimWithinCohort Never with borrowWithinCohort other than Never.
void check_preemption(const json::value& spec, const FieldPath& path, FieldErrors& out) {
  const json::value* preemption = at_path(spec, {"preemption"});
  if (preemption == nullptr || !preemption->is_object()) return;
  const std::string_view reclaim = string_member(*preemption, "reclaimWithinCohort");
  const json::value* borrow = at_path(*preemption, {"borrowWithinCohort"});
  if (reclaim == "Never" && borrow != nullptr && borrow->is_object()) {
    const std::string_view policy = string_member(*borrow, "policy");
    if (policy != "Never") {
      out.push_back(invalid(path, json::dump(*preemption), "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"));
    }
  }
}

/// validateFlavorFungibility: a preference needs TryNextFlavor for both borrowing and preempting.
void check_fungibility(const json::value& spec, const FieldPath& path, FieldErrors& out) {
  const json::value* f = at_path(spec, {"flavorFungibility"});
  if (f == nullptr || !f->is_object()) return;
  const std::string_view preference = string_member(*f, "preference");
  if (preference.empty()) return;
  std::string_view borrow = string_member(*f, "whenCanBorrow");
  std::string_view preempt = string_member(*f, "whenCanPreempt");
  if (borrow.empty()) borrow = "MayStopSearch";  // the CRD's defaults
  if (preempt.empty()) preempt = "TryNextFlavor";
  if (borrow != "TryNextFlavor" || preempt != "TryNextFlavor") {
    out.push_back(invalid_string(path.child("preference"), preference,
                                 fmt::format("preference {} requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor",
                                             go_quote(preference))));
  }
}

/// validateAdmissionCheckOnFlavors: onFlavors name flavors of the ClusterQueue.
void check_admission_check_flavors(const json::value& spec, const json::value* old_spec, FieldErrors& out) {
  const json::array* checks = array_of(at_path(spec, {"admissionChecksStrategy", "admissionChecks"}));
  if (checks == nullptr) return;
  auto flavors_of = [](const json::value& s) {
    std::set<std::string> names;
    if (const json::array* groups = array_at(s, "resourceGroups")) {
      for (const auto& g : *groups) {
        if (const json::array* f = array_at(g, "flavors")) {
          for (const auto& flavor : *f) names.insert(std::string(string_member(flavor, "name")));
        }
      }
    }
    return names;
  };
  const std::set<std::string> valid = flavors_of(spec);
  // An update that keeps the flavors and a check's onFlavors is not checked again
  // (RejectUpdatesToCQWithInvalidOnFlavors is off by default).
  std::map<std::string, std::set<std::string>> unchanged;
  if (old_spec != nullptr && flavors_of(*old_spec) == valid) {
    if (const json::array* old_checks = array_of(at_path(*old_spec, {"admissionChecksStrategy", "admissionChecks"}))) {
      for (const auto& c : *old_checks) {
        std::set<std::string> on;
        if (const json::array* f = array_at(c, "onFlavors")) {
          for (const auto& x : *f) on.insert(x.is_string() ? std::string(x.get_string()) : std::string());
        }
        unchanged[std::string(string_member(c, "name"))] = std::move(on);
      }
    }
  }
  const std::vector<std::string> allowed_list(valid.begin(), valid.end());
  const FieldPath path = FieldPath("spec").child("admissionChecksStrategy").child("admissionChecks");
  for (std::size_t i = 0; i < checks->size(); ++i) {
    const json::array* on = array_at((*checks)[i], "onFlavors");
    if (on == nullptr) continue;
    std::set<std::string> on_set;
    for (const auto& x : *on) on_set.insert(x.is_string() ? std::string(x.get_string()) : std::string());
    auto it = unchanged.find(std::string(string_member((*checks)[i], "name")));
    if (it != unchanged.end() && it->second == on_set) continue;
    for (std::size_t j = 0; j < on->size(); ++j) {
      std::string flavor = (*on)[j].is_string() ? std::string((*on)[j].get_string()) : std::string();
      if (!valid.contains(flavor)) out.push_back(not_supported(path.index(i).child("onFlavors").index(j), flavor, allowed_list));
    }
  }
}

const json::value& spec_of(const json::value& object) {
  static const json::value kEmpty = json::object{};
  const json::value* spec = at_path(object, {"spec"});
  return spec != nullptr && spec->is_object() ? *spec : kEmpty;
}

AdmissionResponse verdict(const AdmissionRequest& request, const FieldErrors& errors) {
  if (errors.empty()) return allowed(request.uid);
  return denied(request.uid, aggregate(errors));
}

}  // namespace

AdmissionResponse default_with_resource_in_use_finalizer(const AdmissionRequest& request) {
  AdmissionResponse response = allowed(request.uid);
  if (request.operation != Operation::Create || !request.object.is_object()) return response;
  json::value object = request.object;
  add_finalizer(object, jobs::kResourceInUseFinalizer, response.patch);
  return response;
}

FieldErrors validate_cluster_queue(const json::value& cluster_queue, const json::value* old_cluster_queue) {
  FieldErrors errors;
  const json::value& spec = spec_of(cluster_queue);
  const FieldPath path("spec");
  GroupsConfig config;
  config.has_parent = !string_member(spec, "cohortName").empty();
  config.enforce_nominal_over_lending = true;
  const json::array* groups = array_at(spec, "resourceGroups");
  check_resource_groups(groups, config, path.child("resourceGroups"), errors);
  check_preemption(spec, path.child("preemption"), errors);
  check_fungibility(spec, path.child("flavorFungibility"), errors);
  check_fair_sharing(spec, path.child("fairSharing"), errors);
  check_totals(groups, path.child("resourceGroups"), errors);
  check_admission_check_flavors(spec, old_cluster_queue != nullptr ? &spec_of(*old_cluster_queue) : nullptr, errors);
  return errors;
}

FieldErrors validate_cohort(const json::value& cohort) {
  FieldErrors errors;
  const json::value& spec = spec_of(cohort);
  const FieldPath path("spec");
  check_fair_sharing(spec, path.child("fairSharing"), errors);
  GroupsConfig config;
  config.has_parent = !string_member(spec, "parentName").empty();
  config.is_cohort = true;
  check_resource_groups(array_at(spec, "resourceGroups"), config, path.child("resourceGroups"), errors);
  return errors;
}

FieldErrors validate_resource_flavor(const json::value& flavor) {
  FieldErrors errors;
  const json::array* taints = array_at(spec_of(flavor), "nodeTaints");
  if (taints == nullptr) return errors;
  std::set<std::pair<std::string, std::string>> seen;
  const FieldPath path = FieldPath("spec").child("nodeTaints");
  for (std::size_t i = 0; i < taints->size(); ++i) {
    const json::value& t = (*taints)[i];
    std::pair<std::string, std::string> key{std::string(string_member(t, "key")), std::string(string_member(t, "effect"))};
    if (!seen.insert(key).second) {
      // Go prints the taint with %#v.
      FieldError e = duplicate(path.index(i), fmt::format("v1.Taint{{Key:{}, Value:{}, Effect:{}, TimeAdded:(*v1.Time)(nil)}}",
                                                          go_quote(key.first), go_quote(string_member(t, "value")),
                                                          go_quote(key.second)));
      e.detail = "taints must be unique by key and effect pair";
      errors.push_back(std::move(e));
    }
  }
  return errors;
}

AdmissionResponse review_cluster_queue(const AdmissionRequest& request) {
  if (request.operation != Operation::Create && request.operation != Operation::Update) return allowed(request.uid);
  const json::value* old = request.operation == Operation::Update ? &request.old_object : nullptr;
  return verdict(request, validate_cluster_queue(request.object, old));
}

AdmissionResponse review_cohort(const AdmissionRequest& request) {
  if (request.operation != Operation::Create && request.operation != Operation::Update) return allowed(request.uid);
  return verdict(request, validate_cohort(request.object));
}

AdmissionResponse review_resource_flavor(const AdmissionRequest& request) {
  if (request.operation != Operation::Create && request.operation != Operation::Update) return allowed(request.uid);
  return verdict(request, validate_resource_flavor(request.object));
}

AdmissionResponse review_workload(const AdmissionRequest& request) { return allowed(request.uid); }

}  // namespace kueuepp::kube::webhook
