#pragma once

// The garbage collector (kube-controller-manager's, in-process): objects whose owners
// (metadata.ownerReferences) are all gone are deleted (background cascading deletion: a
// deleted Job takes its Workload along); owners deleted with propagationPolicy=Orphan
// first release their dependents ("orphan" finalizer), owners deleted with Foreground
// wait for their dependents ("foregroundDeletion" finalizer).
//
// It indexes objects by uid and owners' dependents as changes commit, and acts in tasks
// posted to the store thread, so deletions it causes follow the request that caused them.

#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "kube/apiserver/server/api/server_context.hpp"
#include "kube/apiserver/server/controllers/bucket_types.hpp"

namespace kueuepp::kube::server {

class GarbageCollector {
 public:
  explicit GarbageCollector(ServerContext& ctx);

  /// Indexes a committed change and schedules the work it implies.
  void observe(const Change& change);
  /// Indexes every stored object and collects what is due (after a restart).
  void sweep();

 private:
  struct Ref {
    BucketId bucket = 0;
    std::string key;
    bool operator<(const Ref& o) const { return bucket != o.bucket ? bucket < o.bucket : key < o.key; }
  };
  void index(const StoredObject& obj, BucketId bucket);
  void unindex(const StoredObject& obj, BucketId bucket);
  /// Whether two versions of an object have the same index entries (uid, key, owners).
  static bool same_index_entries(const StoredObject& a, const StoredObject& b);
  void schedule_owner(const std::string& owner_uid);
  void schedule_check(Ref dependent);
  void run_owner(const std::string& owner_uid);
  void run_check(const Ref& dependent);
  /// Deletes or releases one dependent whose owner `owner_uid` is gone or orphaning.
  void release_or_delete(const Ref& dependent);
  void handle_deleting_owner(const Ref& owner);
  bool owner_present(const json::value& ref) const;

  ServerContext& ctx_;
  BucketTypes types_;
  std::unordered_map<std::string, Ref> by_uid_;
  std::unordered_map<std::string, std::set<Ref>> dependents_;
  std::unordered_set<std::string> scheduled_owners_;
  std::set<Ref> scheduled_checks_;
};

}  // namespace kueuepp::kube::server
