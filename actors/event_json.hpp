#pragma once

// The core/v1 Event the recorder creates, written straight as JSON text: Events are the
// most numerous of the controller's writes (two per admission) and nothing reads them
// back, so no document is built, serialized and destroyed for each.

#include <string>
#include <string_view>

#include "actors/event_correlator.hpp"
#include "messages/event_protocol.hpp"

namespace kueuepp::actors {

/// The source and reporting component of Kueue's recorders.
inline constexpr std::string_view kEventComponent = "kueue-admission";

/// Events live in the involved object's namespace; cluster-scoped objects' in "default".
std::string event_namespace(const messages::RecordEvent& e);

/// The Event `a` creates for `e`: named a.event_name, count 1, first and last seen at
/// a.first.
std::string new_event_json(const messages::RecordEvent& e, const EventAction& a);

}  // namespace kueuepp::actors
