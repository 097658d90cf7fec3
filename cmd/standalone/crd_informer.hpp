#pragma once

// The watch a standalone runner keeps on a kind it plays the controller of (JobSet, the
// Kubeflow jobs, the Ray kinds, the trainer's kinds, AppWrapper and its components).
// Such a kind is a CRD that may be applied after standalone started: until then its list
// fails with 404 and is retried with backoff capped at 5 s, as the controller's own watch
// of the kind, so that its objects run from when the CRD is applied.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/client/client.hpp"
#include "kube/client/informer.hpp"
#include "kube/client/object.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::cmd {

/// What the runner says about the watch.
struct CrdWatchLog {
  std::string runner;  ///< who speaks, e.g. "ray runner"
  std::string what;    ///< the watched objects in a warning, e.g. "RayJobs"
  /// Said once while the CRD is missing (debug, or info when `missing_at_info`); empty:
  /// nothing is said (a kind the runner watches only because some object uses it).
  std::string missing;
  bool missing_at_info = false;
};

/// The runner's handlers, called on the client's io thread, one at a time.
struct CrdWatchHandlers {
  /// After a (re)list, every object of the kind; absent: `changed(object, false)` each.
  std::function<void(const std::vector<kube::client::Object>&)> relisted;
  /// An object added, modified or deleted.
  std::function<void(const kube::client::Object&, bool deleted)> changed;
};

/// Starts the informer; stop it before the client goes.
std::shared_ptr<kube::client::Informer> start_crd_informer(kube::client::Client& client,
                                                           const kube::client::ResourceDescriptor& resource,
                                                           CrdWatchLog log, CrdWatchHandlers handlers);

}  // namespace kueuepp::cmd
