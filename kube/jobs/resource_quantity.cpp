#include "kube/jobs/resource_quantity.hpp"

#include "core/quantity.hpp"

namespace kueuepp::kube::jobs {

namespace {

bool binary_resource(std::string_view name) {
  return name == "memory" || name == "ephemeral-storage" || name.starts_with("hugepages-");
}

/// Whole units, rounded away from zero as Quantity.Value() does.
std::int64_t units_ceil(std::int64_t milli) {
  std::int64_t units = milli / 1000;
  if (milli % 1000 > 0) ++units;
  if (milli % 1000 < 0) --units;
  return units;
}

}  // namespace

std::string resource_quantity(std::string_view name, std::int64_t milli) {
  using core::Quantity;
  if (name == "cpu") return Quantity::from_milli(milli, Quantity::Format::DecimalSI).to_string();
  auto format = binary_resource(name) ? Quantity::Format::BinarySI : Quantity::Format::DecimalSI;
  return Quantity::from_units(units_ceil(milli), format).to_string();
}

json::object resource_list_json(const core::ResourceList& list) {
  json::object out;
  for (const auto& [name, q] : list) out[name] = resource_quantity(name, q.milli());
  return out;
}

}  // namespace kueuepp::kube::jobs
