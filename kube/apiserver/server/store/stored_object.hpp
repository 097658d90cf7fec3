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
#include "kube/apiserver/schema/validation_stamp.hpp"

namespace kueuepp::kube::server {

struct StoredObject {
  /// The document, but for metadata.managedFields: those are held apart (below), and a
  /// null stands in their place. Whatever reads or copies managedFields, or hands the
  /// object on whole (a copy to write back, a conversion, a response), takes document().
  json::value doc;
  /// metadata.managedFields' value (null pointer: the document has none). Shared, not
  /// copied, by the next version when a write keeps them as they are (the usual status
  /// write by the fields' owner within the second): they are often most of an object.
  std::shared_ptr<const json::value> managed_fields;
  std::string json;         ///< compact serialization of the document
  /// Where metadata.managedFields' value lies in `json` (empty: absent).
  json::TextSpan managed_fields_text;
  std::uint64_t rv = 0;     ///< metadata.resourceVersion as a number
  std::string key;          ///< "namespace/name", or "name" when cluster-scoped
  std::string ns;
  std::string name;
  std::string uid;
  /// What the write that stored this version knows about its validity (custom resources:
  /// the schema it passed), so that the next write validates only what it changes.
  schema::ValidationStamp validation;

  /// The whole document: `doc` with its managedFields back in place (a copy).
  json::value document() const;
  /// Its metadata alone, managedFields in place (a copy): what partial-metadata answers
  /// need, without copying the rest of the document as document() would.
  json::object metadata() const;
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

/// Makes a stored version: sets metadata.resourceVersion to `rv`, serializes, extracts the
/// identity, holds metadata.managedFields apart. `doc` must be storable (below).
/// `managed_fields_of`: a version whose managedFields the new one keeps exactly (a write
/// that left them as stored: record_update_keeping's promise); `doc`'s own
/// metadata.managedFields then only stands in for them, and the new version shares them
/// and their text.
ObjectPtr make_stored(json::value doc, std::uint64_t rv, schema::ValidationStamp validation = {},
                      const StoredObject* managed_fields_of = nullptr);

/// `object` again at resourceVersion `rv` (what a deletion's watch event carries), its
/// managedFields shared.
ObjectPtr restamped(const StoredObject& object, std::uint64_t rv);

/// Whether make_stored accepts `doc`: an object whose metadata is an object with a
/// non-empty string name. Recovery checks what it reads from disk with it, since a
/// record's checksum proves only that it was written whole, not what wrote it.
bool is_storable(const json::value& doc);

/// The store key of an object: "ns/name" or "name".
std::string object_key(std::string_view ns, std::string_view name);

}  // namespace kueuepp::kube::server
