#pragma once

// record_update (patch.hpp) for callers that keep the stored object's serialization: it
// also tells when the write leaves metadata.managedFields exactly as stored, so that
// their text can be reused instead of serialized again (the API server's store does).

#include <span>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/patch/patch.hpp"

namespace kueuepp::kube::patch {

/// The top-level members a write may have changed, when its caller knows every other one
/// equals the stored object's: a status write leaves all but status and metadata as
/// stored (Strategy::prepare_for_update), so comparing spec again would only confirm it.
/// Empty: any member may have changed.
using ChangeableMembers = std::span<const std::string_view>;

/// record_update with explicit list strategies. True when `object`'s managedFields came
/// out a copy of `previous`'s, with nothing changed: same entries, same members in the
/// same order (so they serialize alike). That is the case of a write that changes only
/// fields its manager alone owns, within the second of the manager's last write. False
/// whenever that is not certain (entries the request sent, the general path).
bool record_update_keeping(json::value& object, const json::value* previous, std::string_view manager,
                           std::string_view api_version, std::string_view timestamp, std::string_view subresource,
                           const ListStrategyResolver& lists, const AtomicObjectResolver& atomic_objects = {},
                           ChangeableMembers changeable = {});

}  // namespace kueuepp::kube::patch
