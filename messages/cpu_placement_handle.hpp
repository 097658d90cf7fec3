#pragma once

// The CPU placement actor's typed interface (see actors/cpu_placement_actor.hpp): it
// measures the controller's CPU use once per window and shares one CPU among the
// controller's threads while that is enough. Include from actor implementation files
// and the controller only: it pulls in CAF's typed-actor headers (through
// actor_handles.hpp, which also whitelists IntrospectActor and ActorInfo).

#include "messages/actor_handles.hpp"

namespace kueuepp::messages {

/// The actor's own timer: measure the window that ends now.
struct CpuPlacementTick {};

using cpu_placement_actor =
    caf::typed_actor<caf::reacts_to<CpuPlacementTick>, caf::replies_to<IntrospectActor>::with<ActorInfo>>;

}  // namespace kueuepp::messages

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::messages::CpuPlacementTick)
