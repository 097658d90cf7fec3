#pragma once

// A whole status.conditions list after some changes, with Kubernetes' semantics
// (meta.SetStatusCondition): keyed by type, lastTransitionTime moves only when the status
// flips, reason/message/observedGeneration update in place. Merge patches replace lists
// whole, so status writers send the full list computed here from the current object.

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/model/time.hpp"
#include "kube/client/conditions.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// Kueue's api.TruncateConditionMessage: at most 32 KiB, cut with " ...".
std::string truncate_condition_message(std::string_view message);

/// `object`'s status.conditions with `changes` applied in order (messages truncated).
/// A change without observed_generation leaves the stored one as is.
json::value conditions_after(const client::Object& object, std::span<const client::Condition> changes,
                             core::Time now);
json::value conditions_after(const client::Object& object, std::initializer_list<client::Condition> changes,
                             core::Time now);

/// The condition of `type` in a conditions list (null or not a list: none).
std::optional<client::Condition> find_condition(const json::value& conditions, std::string_view type);

}  // namespace kueuepp::kube::jobs
