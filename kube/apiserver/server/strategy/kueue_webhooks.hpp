#pragma once

// Kueue's validating webhooks, as far as they go beyond the CRDs' OpenAPI schemas and CEL
// rules: on a Kueue cluster the webhooks refuse these objects, so the embedded server
// refuses them too (422 Invalid, with Kueue's field paths and wording), on create and on
// update. Quota quantities must not be negative (Kueue's validateResourceQuantity) and a
// lendingLimit may not exceed its nominalQuota.

#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/field_error.hpp"

namespace kueuepp::kube::server {

inline constexpr std::string_view kKueueGroup = "kueue.x-k8s.io";

/// The webhook errors of one Kueue object of `kind` (none for kinds without checks).
FieldErrors kueue_webhook_errors(std::string_view kind, const json::object& object);

}  // namespace kueuepp::kube::server
