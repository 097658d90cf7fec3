#pragma once

// Watch protocol: what the watch actors deliver to the snapshot actor and the job actor.
// Objects travel as shared immutable versions (CachedObject: decoded once, on the io
// thread, never copied per receiver). Kinds that caches keep by the ten thousand
// (Workloads, Jobs) travel packed: a watch event's text is written packed by the io
// thread's decoder, which decodes only the object's metadata; a relist's items are packed
// by the watch actor. The caches keep the packed text.

#include <memory>
#include <string>
#include <vector>

#include "messages/cached_object.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::messages {

/// Whether the watch actor packs objects of `kind` (see CachedObject).
constexpr bool travels_packed(ObjectKind kind) { return kind_traits(kind).packed; }

/// The complete current state of one kind (first list, or re-list after 410 Gone):
/// the receiver replaces everything it knew of this kind.
struct ObjectsRelisted {
  ObjectKind kind = ObjectKind::Workload;
  std::shared_ptr<const std::vector<CachedObject>> items;
};

/// One object added, modified or deleted. For the kinds that travel packed, a watch
/// event's object is its metadata decoded and the whole packed (see CachedObject);
/// receivers read anything else from the text, in place (kube::decode_workload_text) or
/// unpacked.
struct ObjectChanged {
  ObjectKind kind = ObjectKind::Workload;
  bool deleted = false;
  CachedObject object;
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

}  // namespace kueuepp::messages
