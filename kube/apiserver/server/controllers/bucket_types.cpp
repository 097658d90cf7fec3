#include "kube/apiserver/server/controllers/bucket_types.hpp"

namespace kueuepp::kube::server {

ResourceTypePtr BucketTypes::of(BucketId bucket) {
  if (revision_ != ctx_.registry.revision()) {
    types_.clear();
    for (auto& t : ctx_.registry.storage_types()) types_[ctx_.bucket_of(*t)] = t;
    revision_ = ctx_.registry.revision();
  }
  auto it = types_.find(bucket);
  return it == types_.end() ? nullptr : it->second;
}

}  // namespace kueuepp::kube::server
