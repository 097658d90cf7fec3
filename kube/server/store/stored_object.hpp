#pragma once

// One version of one object as the store holds it: the document, its serialization
// (made once when the version is written and shared by every GET, list and watch event
// that returns it), and the identity fields the store indexes by. Immutable once made,
// so versions are shared between the live map, the watch history and snapshots across
// threads without copying.

#include <cstdint>
#include <memory>
#include <string>

#include "kube/json/dump_member.hpp"
#include "kube/json/json.hpp"
#include "kube/schema/validation_stamp.hpp"

namespace kueuepp::kube::server {

struct StoredObject {
  json::value doc;
  std::string json;         ///< compact serialization of `doc`
  /// Where metadata.managedFields' value lies in `json` (empty: absent).
  json::TextSpan managed_fields;
  std::uint64_t rv = 0;     ///< metadata.resourceVersion as a number
  std::string key;          ///< "namespace/name", or "name" when cluster-scoped
  std::string ns;
  std::string name;
  std::string uid;
  /// What the write that stored this version knows about its validity (custom resources:
  /// the schema it passed), so that the next write validates only what it changes.
  schema::ValidationStamp validation;
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

/// Makes a stored version: sets metadata.resourceVersion to `rv`, serializes, extracts the
/// identity. `doc` must be storable (below). `managed_fields_of`: a version whose
/// metadata.managedFields `doc` has exactly (a copy, nothing changed, members in the same
/// order: record_update_keeping's promise); their text is taken from it instead of
/// serialized again.
ObjectPtr make_stored(json::value doc, std::uint64_t rv, schema::ValidationStamp validation = {},
                      const StoredObject* managed_fields_of = nullptr);

/// Whether make_stored accepts `doc`: an object whose metadata is an object with a
/// non-empty string name. Recovery checks what it reads from disk with it, since a
/// record's checksum proves only that it was written whole, not what wrote it.
bool is_storable(const json::value& doc);

/// The store key of an object: "ns/name" or "name".
std::string object_key(std::string_view ns, std::string_view name);

}  // namespace kueuepp::kube::server
