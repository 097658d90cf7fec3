#pragma once

// Watch protocol: what the watch actors deliver to the snapshot actor. Objects travel
// as shared immutable JSON documents (decoded once, on the io thread; never copied per
// receiver). Kinds that caches keep by the ten thousand (Workloads, Jobs) travel packed
// (kube::client::PackedObject): a watch event's text is written packed by the io thread's
// decoder, which builds only the object's metadata as a document; a relist's items are
// packed by the watch actor. The caches keep the packed text.

#include <memory>
#include <string>
#include <vector>

#include "kube/client/object.hpp"
#include "kube/client/packed_object.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::messages {

using ObjectPtr = std::shared_ptr<const kube::client::Object>;
using PackedPtr = std::shared_ptr<const kube::client::PackedObject>;

/// Whether the watch actor packs objects of `kind` (see PackedObject).
constexpr bool travels_packed(ObjectKind kind) { return kind_traits(kind).packed; }

/// The complete current state of one kind (first list, or re-list after 410 Gone):
/// the receiver replaces everything it knew of this kind.
struct ObjectsRelisted {
  ObjectKind kind = ObjectKind::Workload;
  std::shared_ptr<const std::vector<ObjectPtr>> items;
  /// `items` packed, in the same order, for the kinds that travel packed; else null.
  std::shared_ptr<const std::vector<PackedPtr>> packed;
};

/// One object added, modified or deleted. For the kinds that travel packed, a watch
/// event's `object` is only its apiVersion, kind and metadata (the watch decoder writes
/// the whole straight to `packed`, without building it as a document); receivers read
/// anything else from `packed`, in place (kube::decode_workload_text) or unpacked.
struct ObjectChanged {
  ObjectKind kind = ObjectKind::Workload;
  bool deleted = false;
  ObjectPtr object;
  PackedPtr packed;  ///< the object whole, for the kinds that travel packed; else null
};

/// Consecutive changes of one kind, in the order they happened: the watch actor forwards
/// what its mailbox held at once in one message per subscriber (a deep queue's status
/// churn is a few hundred watch events per second, and a message per event per hop was a
/// tenth of the controller's CPU in CAF's enqueueing, dispatch and wake-ups).
struct ObjectChanges {
  ObjectKind kind = ObjectKind::Workload;
  std::vector<ObjectChanged> changes;
};

/// The watch actor's cue to forward the changes it gathered (sent to itself behind the
/// events already in its mailbox).
struct FlushChanges {};

inline PackedPtr pack(const kube::client::Object& object) {
  return std::make_shared<const kube::client::PackedObject>(kube::client::PackedObject::pack(object));
}

/// The event's object packed: as the watch actor packed it, or packed now (an event
/// made elsewhere, as in tests). Null when the event has no object.
inline PackedPtr packed_of(const ObjectChanged& event) {
  if (event.packed || !event.object) return event.packed;
  return pack(*event.object);
}

/// The relisted item `i` packed, likewise.
inline PackedPtr packed_of(const ObjectsRelisted& event, std::size_t i) {
  if (event.packed && i < event.packed->size()) return (*event.packed)[i];
  return pack(*(*event.items)[i]);
}

}  // namespace kueuepp::messages
