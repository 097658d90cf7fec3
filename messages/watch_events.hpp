#pragma once

// Watch protocol: what the watch actors deliver to the snapshot actor. Objects travel
// as shared immutable JSON documents (decoded once, on the io thread; never copied per
// receiver).

#include <memory>
#include <string>
#include <vector>

#include "kube/client/object.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::messages {

using ObjectPtr = std::shared_ptr<const kube::client::Object>;

/// The complete current state of one kind (first list, or re-list after 410 Gone):
/// the receiver replaces everything it knew of this kind.
struct ObjectsRelisted {
  ObjectKind kind = ObjectKind::Workload;
  std::shared_ptr<const std::vector<ObjectPtr>> items;
};

/// One object added, modified or deleted.
struct ObjectChanged {
  ObjectKind kind = ObjectKind::Workload;
  bool deleted = false;
  ObjectPtr object;
};

}  // namespace kueuepp::messages
