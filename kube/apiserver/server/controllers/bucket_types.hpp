#pragma once

// Maps a store bucket back to a resource type that serves it (the preferred version),
// for controllers that meet objects through changes rather than requests.

#include <cstdint>
#include <unordered_map>

#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

class BucketTypes {
 public:
  explicit BucketTypes(ServerContext& ctx) : ctx_(ctx) {}
  /// The type serving `bucket` (null when no served type uses it any more).
  ResourceTypePtr of(BucketId bucket);

 private:
  ServerContext& ctx_;
  std::uint64_t revision_ = ~std::uint64_t{0};
  std::unordered_map<BucketId, ResourceTypePtr> types_;
};

}  // namespace kueuepp::kube::server
