#pragma once

// The four ways Kubernetes changes an object from a client's description of a change:
// JSON merge patch (RFC 7386), JSON patch (RFC 6902), strategic merge patch (built-in
// kinds only) and server-side apply. Pure functions over JSON values: no I/O.

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::patch {

/// Why a patch could not be applied. The server maps kinds to HTTP answers.
struct PatchError {
  enum class Kind {
    BadRequest,  ///< the patch document itself is malformed (400)
    Invalid,     ///< a JSON-patch `test` failed, a path does not exist, ... (422)
    Conflict,    ///< server-side apply: a field owned by another manager (409)
  };
  Kind kind = Kind::BadRequest;
  std::string message;
  /// For Conflict: one entry per conflicting field, e.g. `.spec.replicas` owned by "kubectl".
  std::vector<std::string> conflicts;
};

/// How a list field merges. Strategic merge patch gets it from the built-in types'
/// patchStrategy/patchMergeKey tags; server-side apply from x-kubernetes-list-type /
/// x-kubernetes-list-map-keys (built-in kinds: the same information as a table).
struct ListStrategy {
  enum class Kind { Atomic, Set, Map };
  Kind kind = Kind::Atomic;
  std::vector<std::string> keys;  ///< for Map: the merge keys (strategic merge uses one)
};

/// The field path of a list, from the object root, object keys only (array levels are
/// skipped): {"spec", "template", "spec", "containers"}.
using FieldPath = std::span<const std::string>;
using ListStrategyResolver = std::function<ListStrategy(FieldPath)>;

/// RFC 7386 merge patch. `patch` must be a JSON value; null deletes.
Expected<json::value, PatchError> merge_patch(const json::value& target, const json::value& patch);

/// RFC 6902 JSON patch (`add`, `remove`, `replace`, `move`, `copy`, `test`).
Expected<json::value, PatchError> json_patch(const json::value& target, const json::value& ops);

/// Strategic merge patch with the directives kubectl sends (`$patch`, `$retainKeys`,
/// `$setElementOrder/<field>`, `$deleteFromPrimitiveList/<field>`).
Expected<json::value, PatchError> strategic_merge_patch(const json::value& target,
                                                        const json::value& patch,
                                                        const ListStrategyResolver& lists);

/// The list strategies of the built-in kinds kubectl patches (Pod templates of Jobs:
/// containers, initContainers, env, ports, volumeMounts, volumes, ...; metadata:
/// finalizers, ownerReferences; conditions). `group`/`kind` select the type.
ListStrategyResolver builtin_list_strategies(std::string_view group, std::string_view kind);

/// Server-side apply. `live` is the stored object (null when creating). `applied` is the
/// manager's configuration. The result carries updated `metadata.managedFields`. Fields
/// the manager owned before and no longer applies are removed when nobody else owns them.
/// With `force`, conflicting fields change owner instead of failing.
struct ApplyRequest {
  const json::value* live = nullptr;
  const json::value* applied = nullptr;
  std::string_view manager;
  bool force = false;
  std::string_view api_version;  ///< recorded in managedFields entries
  std::string_view timestamp;    ///< RFC 3339, recorded in managedFields entries
  ListStrategyResolver lists;
};
Expected<json::value, PatchError> server_side_apply(const ApplyRequest& request);

/// Records an ordinary (non-apply) write in managedFields under `manager` with
/// operation "Update", as kube-apiserver does for create/update/patch.
void record_update(json::value& object, const json::value* previous, std::string_view manager,
                   std::string_view api_version, std::string_view timestamp,
                   std::string_view subresource = {});

}  // namespace kueuepp::kube::patch
