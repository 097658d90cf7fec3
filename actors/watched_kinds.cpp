#include "actors/watched_kinds.hpp"

namespace kueuepp::actors {

const kube::client::ResourceDescriptor& resource_of(messages::ObjectKind kind) {
  return *messages::kind_traits(kind).resource;
}

}  // namespace kueuepp::actors
