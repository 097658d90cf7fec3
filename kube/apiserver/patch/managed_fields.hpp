#pragma once

// metadata.managedFields: decoding the entries into field sets, encoding them back in
// kube-apiserver's order, manager identities, and the bookkeeping kube-apiserver adds
// around structured-merge-diff (meta fields nobody owns, at most 10 Update entries).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/patch/field_set.hpp"
#include "kube/apiserver/patch/managed_fields_kept.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::detail {

struct ManagedEntry {
  std::string manager;
  std::string operation;  ///< "Apply" or "Update"
  std::string api_version;
  std::string time;  ///< RFC 3339; empty when unknown
  std::string subresource;
  FieldSet fields;

  bool applied() const { return operation == "Apply"; }
  /// Who this is, as upstream keys managers: manager, operation, subresource, and the
  /// apiVersion for Update entries (an applier is the same applier at every version).
  std::string identity() const;
  /// As conflicts name it: `"kubectl"`, `"m" with subresource "status" using batch/v1`.
  std::string display() const;
};

using ManagedEntries = std::vector<ManagedEntry>;

/// The entries of `object`'s metadata.managedFields (none when absent). Fails on entries
/// kube-apiserver would refuse: unknown operation, empty apiVersion, fieldsType other than
/// FieldsV1, undecodable fieldsV1.
Expected<ManagedEntries> decode_managed_fields(const json::value& object);
/// decode_managed_fields of the value of metadata.managedFields (null: absent).
Expected<ManagedEntries> decode_managed_field_list(const json::value* managed_fields);

/// True for `[]` and `[{}]`: a request that asks to clear managedFields.
bool is_reset_request(const json::value& managed_fields);

/// Writes `entries` to `object`'s metadata.managedFields, sorted like kube-apiserver
/// (Apply before Update, then by time, manager, apiVersion, subresource); removes the
/// member when there are none.
void encode_managed_fields(json::value& object, ManagedEntries entries);

/// The entry with this identity, or nullptr.
ManagedEntry* find_entry(ManagedEntries& entries, const std::string& identity);

/// Fields nobody owns: apiVersion, kind, metadata itself and its server-set members
/// (name, namespace, uid, resourceVersion, generation, creationTimestamp, ...).
const FieldSet& meta_fields();

/// Drops entries whose set became empty.
void drop_empty(ManagedEntries& entries);

/// Keeps at most `max_updaters` Update entries, folding the oldest into
/// "ancient-changes" entries (one per apiVersion), as kube-apiserver does.
void cap_update_managers(ManagedEntries& entries, std::size_t max_updaters = 10);

/// How record_update records a write: `Any` lets it keep the stored entries in place when
/// the write only touches fields its manager alone owns; `GeneralOnly` always decodes the
/// entries into field sets and encodes them back (tests check both agree).
enum class RecordPath { Any, GeneralOnly };

/// previous's managedFields as a store that holds them apart gives them (see
/// record_update_keeping); nullopt: they are in previous itself.
using HeldApart = std::optional<const json::value*>;

/// record_update (patch.hpp) by the given path; true when the in-place path recorded it.
/// `*kept_as_stored` (when given): whether object's managedFields came out exactly as the
/// stored ones (see record_update_keeping): a copy of them, or with `held_apart` given, a
/// null stand-in for them. `changeable`: see ChangeableMembers.
bool record_update_via(RecordPath path, json::value& object, const json::value* previous, std::string_view manager,
                       std::string_view api_version, std::string_view timestamp, std::string_view subresource,
                       const ListStrategyResolver& lists, const AtomicObjectResolver& atomic_objects,
                       bool* kept_as_stored = nullptr, ChangeableMembers changeable = {}, HeldApart held_apart = {});

/// `object` without metadata.managedFields.
json::value without_managed_fields(const json::value& object);

}  // namespace kueuepp::kube::patch::detail
