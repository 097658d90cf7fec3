#include "kube/takeover/takeover_step.hpp"

#include <array>

namespace kueuepp::kube::takeover {

namespace {

constexpr std::array kSteps{TakeoverStep::Check,  TakeoverStep::ScaleDown,      TakeoverStep::Webhooks,
                            TakeoverStep::Crds,   TakeoverStep::MigrateStorage, TakeoverStep::TrimStoredVersions};

}  // namespace

std::span<const TakeoverStep> takeover_steps() { return kSteps; }

std::string_view step_name(TakeoverStep step) {
  switch (step) {
    case TakeoverStep::Check: return "check";
    case TakeoverStep::ScaleDown: return "scale-down";
    case TakeoverStep::Webhooks: return "webhooks";
    case TakeoverStep::Crds: return "crds";
    case TakeoverStep::MigrateStorage: return "migrate-storage";
    case TakeoverStep::TrimStoredVersions: return "trim-stored-versions";
  }
  return "?";
}

std::optional<TakeoverStep> parse_step(std::string_view name) {
  for (TakeoverStep step : kSteps) {
    if (step_name(step) == name) return step;
  }
  return std::nullopt;
}

}  // namespace kueuepp::kube::takeover
