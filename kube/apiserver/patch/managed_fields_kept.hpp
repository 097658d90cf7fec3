#pragma once

// record_update (patch.hpp) for a store that keeps managedFields apart from the rest of
// each version: it also tells when the write leaves metadata.managedFields exactly as
// stored, so that the new version shares them (and their serialization) instead of
// copying them (the API server's store does).

#include <optional>
#include <span>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch {

/// The top-level members a write may have changed, when its caller knows every other one
/// equals the stored object's: a status write leaves all but status and metadata as
/// stored (Strategy::prepare_for_update), so comparing spec again would only confirm it.
/// Empty: any member may have changed.
using ChangeableMembers = std::span<const std::string_view>;

/// record_update with explicit list strategies, for a store that holds each version's
/// metadata.managedFields apart from its document and shares them between versions:
/// `stored_managed_fields` are previous's (null: it has none); previous's own
/// metadata.managedFields only stands in for them and is not read.
/// True when the write keeps them exactly as stored: same entries, same members in the
/// same order (so they also serialize alike). That is the case of a write that changes
/// only fields its manager alone owns, within the second of the manager's last write.
/// Then object's metadata.managedFields is left a null stand-in for them, for the store to
/// share instead of copy. False whenever that is not certain (entries the request sent,
/// the general path): object then has managedFields of its own.
bool record_update_keeping(json::value& object, const json::value* previous, const json::value* stored_managed_fields,
                           std::string_view manager, std::string_view api_version, std::string_view timestamp,
                           std::string_view subresource, const ListStrategyResolver& lists,
                           const AtomicObjectResolver& atomic_objects = {}, ChangeableMembers changeable = {});

}  // namespace kueuepp::kube::patch
