#pragma once

// The steps of `kueuepp takeover`, in the order they run. Each is naturally idempotent
// (it looks at the cluster and does what is still to do), so a takeover interrupted
// anywhere is finished by running the command again.

#include <optional>
#include <span>
#include <string_view>

namespace kueuepp::kube::takeover {

enum class TakeoverStep {
  Check,               ///< refuse what kueuepp cannot take over; writes nothing
  ScaleDown,           ///< Kueue's controller Deployment to zero, and wait for its pods to go
  Webhooks,            ///< Kueue's webhook configurations saved, then removed (kueuepp's hold Jobs)
  Crds,                ///< the Kueue CRDs updated in place to kueuepp's (v1beta2 stored)
  MigrateStorage,      ///< every Kueue object rewritten unchanged, so it is stored as v1beta2
  TrimStoredVersions,  ///< status.storedVersions of each CRD cut to [v1beta2]
};

/// Every step, in order.
std::span<const TakeoverStep> takeover_steps();

/// "check", "scale-down", "webhooks", "crds", "migrate-storage", "trim-stored-versions".
std::string_view step_name(TakeoverStep step);

/// The step named so, or nullopt.
std::optional<TakeoverStep> parse_step(std::string_view name);

}  // namespace kueuepp::kube::takeover
