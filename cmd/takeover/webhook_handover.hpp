#pragma once

// Kueue's admission webhook configurations handed over to kueuepp's: each is saved in a
// ConfigMap in Kueue's namespace (for --rollback), then deleted, once kueuepp's are in
// place (the check step requires kueuepp's, with their caBundle, before anything runs).
//
// Why this order, after Kueue's controller is scaled down: while both sets exist, both
// mutate a new Job (each suspends it: harmless twice); once Kueue's pods are gone, its
// webhooks (failurePolicy Fail) refuse Jobs until its configurations are deleted, a
// moment later. A Job is then refused, to be retried, never created unheld: there is
// no moment without a webhook that suspends it.

#include "cmd/takeover/takeover_context.hpp"

namespace kueuepp::cmd::takeover {

/// "kueue-mutating-webhook-configuration (3 webhooks), ..." or "none left".
std::string describe_kueue_webhooks(TakeoverContext& ctx);

/// Saves and deletes Kueue's two configurations; those already gone are skipped.
Status hand_webhooks_to_kueuepp(TakeoverContext& ctx);

/// Creates Kueue's configurations again from the saved copies, then deletes kueuepp's.
Status hand_webhooks_back_to_kueue(TakeoverContext& ctx);

/// The ConfigMap that keeps Kueue's configurations.
inline constexpr std::string_view kSavedWebhooksConfigMap = "kueuepp-takeover-kueue-webhooks";

}  // namespace kueuepp::cmd::takeover
