#pragma once

// The API resource behind each kind the controller watches or writes.

#include "kube/client/resource.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::actors {

const kube::client::ResourceDescriptor& resource_of(messages::ObjectKind kind);

}  // namespace kueuepp::actors
