#pragma once

// Deleting one object the way kube-apiserver's generic store does: preconditions, the
// garbage-collection finalizers a propagation policy implies (orphan,
// foregroundDeletion), and then either removal at once or a deletionTimestamp while
// finalizers hold the object. Used by DELETE requests, the garbage collector and the
// namespace controller.

#include <functional>
#include <optional>
#include <string>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/request_info.hpp"
#include "kube/apiserver/server/api/server_context.hpp"

namespace kueuepp::kube::server {

struct DeleteOptions {
  std::string propagation_policy;  ///< "", "Orphan", "Background" or "Foreground"
  std::optional<bool> orphan_dependents;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_rv;
  bool dry_run = false;
};

/// DeleteOptions from the query string and (when present) the request body.
ApiResult<DeleteOptions> parse_delete_options(const Query& query, std::string_view body);

struct DeleteOutcome {
  bool removed = false;  ///< gone now (else held by finalizers)
  ObjectPtr object;      ///< the last version (removed) or the new one (held)
};

/// Deletes `current` (of `type`); `done` runs once the change is durable (at once when
/// nothing was written). Dry runs compute the outcome without writing.
ApiResult<DeleteOutcome> delete_object(ServerContext& ctx, const ResourceType& type, const ObjectPtr& current,
                                       const DeleteOptions& options, std::function<void()> done);

}  // namespace kueuepp::kube::server
