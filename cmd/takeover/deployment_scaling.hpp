#pragma once

// Kueue's controller Deployment scaled to zero for the takeover (its replica count kept
// in an annotation) and back for a rollback.

#include "cmd/takeover/takeover_context.hpp"

namespace kueuepp::cmd::takeover {

/// Where Kueue's controller stands: "Deployment kueue-system/kueue-controller-manager: 2
/// replicas", "... not found".
std::string describe_kueue_controller(TakeoverContext& ctx);

/// Sets replicas to 0 (the old count saved in the annotation kueuepp.io/takeover-replicas)
/// and waits until no pod of the Deployment runs. A Deployment not found is gone already.
Status scale_kueue_down(TakeoverContext& ctx);

/// Sets replicas back to the saved count (1 when none was saved) and drops the annotation.
Status scale_kueue_up(TakeoverContext& ctx);

}  // namespace kueuepp::cmd::takeover
