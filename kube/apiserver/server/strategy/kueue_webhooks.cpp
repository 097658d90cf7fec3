#include "kube/apiserver/server/strategy/kueue_webhooks.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "core/quantity.hpp"

namespace kueuepp::kube::server {

namespace {

/// A quantity as written (a JSON string or number); nullopt when it is neither or does
/// not parse (the schema reports those).
std::optional<core::Quantity> quantity_of(const json::value& v, std::string& text) {
  if (v.is_string()) {
    text = std::string(v.get_string());
  } else if (v.is_number()) {
    text = json::dump(v);
  } else {
    return std::nullopt;
  }
  auto q = core::Quantity::parse(text);
  if (!q) return std::nullopt;
  return *q;
}

/// apimachinery's ValidateNonnegativeQuantity.
void check_nonnegative(const json::object& resource, std::string_view key, const std::string& path,
                       FieldErrors& errors) {
  const json::value* v = resource.if_contains(key);
  if (v == nullptr) return;
  std::string text;
  auto q = quantity_of(*v, text);
  if (q && q->milli() < 0) {
    errors.push_back(invalid_error(fmt::format("{}.{}", path, key), json::value(text),
                                   "must be greater than or equal to 0"));
  }
}

void check_resource(const json::object& resource, const std::string& path, FieldErrors& errors) {
  check_nonnegative(resource, "nominalQuota", path, errors);
  check_nonnegative(resource, "borrowingLimit", path, errors);
  check_nonnegative(resource, "lendingLimit", path, errors);
  const json::value* nominal = resource.if_contains("nominalQuota");
  const json::value* lending = resource.if_contains("lendingLimit");
  if (nominal == nullptr || lending == nullptr) return;
  std::string nominal_text, lending_text;
  auto n = quantity_of(*nominal, nominal_text);
  auto l = quantity_of(*lending, lending_text);
  if (n && l && l->milli() >= 0 && *n < *l) {
    errors.push_back(invalid_error(path + ".lendingLimit", json::value(lending_text),
                                   "must be less than or equal to the nominalQuota"));
  }
}

const json::array* array_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_array() ? &v->get_array() : nullptr;
}

/// spec.resourceGroups of a ClusterQueue or a Cohort.
void check_resource_groups(const json::object& spec, FieldErrors& errors) {
  const json::array* groups = array_at(spec, "resourceGroups");
  if (groups == nullptr) return;
  for (std::size_t g = 0; g < groups->size(); ++g) {
    if (!(*groups)[g].is_object()) continue;
    const json::array* flavors = array_at((*groups)[g].get_object(), "flavors");
    if (flavors == nullptr) continue;
    for (std::size_t f = 0; f < flavors->size(); ++f) {
      if (!(*flavors)[f].is_object()) continue;
      const json::array* resources = array_at((*flavors)[f].get_object(), "resources");
      if (resources == nullptr) continue;
      for (std::size_t r = 0; r < resources->size(); ++r) {
        if (!(*resources)[r].is_object()) continue;
        check_resource((*resources)[r].get_object(),
                       fmt::format("spec.resourceGroups[{}].flavors[{}].resources[{}]", g, f, r), errors);
      }
    }
  }
}

}  // namespace

FieldErrors kueue_webhook_errors(std::string_view kind, const json::object& object) {
  FieldErrors errors;
  if (kind != "ClusterQueue" && kind != "Cohort") return errors;
  const json::value* spec = object.if_contains("spec");
  if (spec == nullptr || !spec->is_object()) return errors;
  check_resource_groups(spec->get_object(), errors);
  return errors;
}

}  // namespace kueuepp::kube::server
