#pragma once

// One watch actor per kind: it owns an informer (list + watch with bookmarks, 410
// recovery, reconnect backoff; see kube/client/informer.hpp) whose events arrive from
// the client's io thread, and forwards them as typed messages (ObjectsRelisted,
// ObjectChanged, ObjectChanges) to its subscribers, in order. The io thread hands over
// the changes of one read of the stream in one message.

#include <vector>

#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}
namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::actors {

using watch_actor = caf::typed_actor<caf::reacts_to<messages::ObjectsRelisted>, caf::reacts_to<messages::ObjectChanges>,
                                     caf::reacts_to<messages::FlushChanges>,
                                     caf::replies_to<messages::IntrospectActor>::with<messages::ActorInfo>>;

/// `subscribers` accept ObjectsRelisted, ObjectChanged and ObjectChanges (the changes that
/// were waiting in the watch actor's mailbox together, in order). `on_synced` (optional) runs
/// on the io thread after the first complete list was forwarded.
watch_actor spawn_watch(caf::actor_system& system, kube::client::Client& client, messages::ObjectKind kind,
                        std::vector<messages::object_sink> subscribers, messages::introspection_actor introspection,
                        std::function<void()> on_synced = {});

}  // namespace kueuepp::actors
