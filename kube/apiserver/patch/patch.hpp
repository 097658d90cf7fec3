#pragma once

// The four ways Kubernetes changes an object from a client's description of a change:
// JSON merge patch (RFC 7386), JSON patch (RFC 6902), strategic merge patch (built-in
// kinds only) and server-side apply. Pure functions over JSON values: no I/O.

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::patch {

/// One server-side apply conflict, in the terms of kube-apiserver's Status
/// `details.causes[]` (reason `FieldManagerConflict`).
struct FieldConflict {
  std::string field;    ///< the field path, `.spec.replicas`, `.spec.containers[name="c"].image`
  std::string manager;  ///< the manager that owns it, e.g. `kubectl`
  std::string message;  ///< `conflict with "kubectl"`, or `conflict with "m" using batch/v1`
};

/// Why a patch could not be applied. The server maps kinds to HTTP answers.
///
/// The kinds follow kube-apiserver v1.28 (see the conformance traces s08):
/// - JSON patch: the document is not an array, an operation is not an object, or `op`,
///   `path`, `from` are not strings -> BadRequest (400 "error decoding patch: ...");
///   everything that fails while applying the operations (unknown or missing `op`, missing
///   `path`/`value`/`from`, bad pointer, missing target, index out of range, failing
///   `test`) -> Invalid (422, the server answers the generic "the server rejected our
///   request due to an error in our request"). `cause` tells them apart.
/// - merge patch: never fails but for nesting (RFC 7386). kube-apiserver answers 400
///   "Invalid JSON Patch" for a merge-patch body that is `null`, a number, a string or a
///   boolean; the server checks that before calling.
/// - strategic merge patch: a malformed directive ($retainKeys, $setElementOrder,
///   $deleteFromPrimitiveList, unknown $patch) or a non-object patch -> BadRequest; merge
///   errors (missing merge key, lists of lists, mixed element types) -> Invalid
///   (kube-apiserver answers 422 for lists of lists and 500 for the others).
/// - server-side apply: conflicts -> Conflict (409); a malformed applied configuration
///   (duplicate list keys, missing list-map keys, metadata.managedFields set) -> BadRequest.
struct PatchError {
  enum class Kind {
    BadRequest,  ///< the patch document itself is malformed (400)
    Invalid,     ///< a JSON-patch `test` failed, a path does not exist, ... (422)
    Conflict,    ///< server-side apply: a field owned by another manager (409)
  };
  /// A finer reason than `kind`, for callers and tests that must tell failures apart.
  enum class Cause {
    Malformed,        ///< the patch (or applied configuration) is not well-formed
    PathNotFound,     ///< JSON patch: the target (or `from`) location does not exist
    TestFailed,       ///< JSON patch: a `test` operation found a different value
    IndexOutOfRange,  ///< JSON patch: an array index beyond the array's end
    NotAContainer,    ///< JSON patch: a path goes through a scalar
    MergeFailed,      ///< strategic merge: missing merge key, lists of lists, ...
    TooDeep,          ///< nested deeper than the library's limit (kMaxDepth)
    ManagerConflict,  ///< server-side apply conflict
  };
  Kind kind = Kind::BadRequest;
  std::string message;
  /// For Conflict: one entry per conflicting field, the kube-apiserver message line
  /// `conflict with "kubectl": .spec.replicas` (sorted by manager, then field).
  std::vector<std::string> conflicts;
  Cause cause = Cause::Malformed;
  /// Where it failed: a JSON pointer for JSON patch (`/spec/parallelism`), a field path
  /// otherwise (`.spec.template.spec.containers`). Also part of `message`.
  std::string path;
  /// For Conflict: the same conflicts, structured for Status `details.causes[]`.
  std::vector<FieldConflict> conflict_causes;
};

/// How deep documents may nest before a patch is refused with Cause::TooDeep (documents
/// parsed by kube/json are at most 256 deep; patches can at most double that).
inline constexpr int kMaxDepth = 512;

/// kube-apiserver refuses JSON patches with more operations than this with 413
/// (RequestEntityTooLarge); the server checks it before calling json_patch.
inline constexpr std::size_t kMaxJsonPatchOperations = 10000;

/// How a list field merges. Strategic merge patch gets it from the built-in types'
/// patchStrategy/patchMergeKey tags; server-side apply from x-kubernetes-list-type /
/// x-kubernetes-list-map-keys (built-in kinds: the same information as a table).
struct ListStrategy {
  enum class Kind { Atomic, Set, Map };
  Kind kind = Kind::Atomic;
  std::vector<std::string> keys;  ///< for Map: the merge keys (strategic merge uses one)
  /// For Map (server-side apply): values of key fields that elements may omit because the
  /// schema defaults them, e.g. {"protocol": "TCP"} for container ports. Without it an
  /// applied port without protocol would not match the stored (defaulted) one.
  json::object key_defaults = {};
};

/// The field path of a list, from the object root, object keys only (array levels are
/// skipped): {"spec", "template", "spec", "containers"}.
using FieldPath = std::span<const std::string>;
/// Unknown paths must answer Kind::Atomic (that is what an unannotated list is).
using ListStrategyResolver = std::function<ListStrategy(FieldPath)>;
/// Server-side apply only: true for objects owned and replaced whole
/// (`x-kubernetes-map-type: atomic`, Go `+structType=atomic` / `+mapType=atomic`, e.g. a
/// LabelSelector). Same path convention as ListStrategyResolver. Empty: no atomic objects.
using AtomicObjectResolver = std::function<bool(FieldPath)>;

/// RFC 7386 merge patch. `patch` must be a JSON value; null deletes. A patch that is not
/// an object replaces the target as it is (RFC 7386).
Expected<json::value, PatchError> merge_patch(const json::value& target, const json::value& patch);

/// The same merge, except that the member of `target` at `omit` (a path of object keys)
/// is left out of the result when the patch does not name it (the patch's own value, null
/// included, is merged as usual). The API server leaves out metadata.managedFields this
/// way: a write that does not send them gets the stored ones from the field manager, so
/// copying them here (and comparing them with the stored ones there) is wasted.
Expected<json::value, PatchError> merge_patch(const json::value& target, const json::value& patch,
                                              std::span<const std::string_view> omit);
/// The same, taking the patch over: its values are moved into the result instead of
/// copied (the patch is left valid but unspecified). For a patch parsed only to be merged.
Expected<json::value, PatchError> merge_patch(const json::value& target, json::value&& patch,
                                              std::span<const std::string_view> omit);

/// The same merge, in place: for callers that own a copy of the target anyway (e.g. just
/// decoded from storage), it saves copying the members the patch does not touch. On error
/// (nesting deeper than kMaxDepth) `target` may be partly patched.
Expected<void, PatchError> merge_patch_into(json::value& target, const json::value& patch);

/// RFC 6902 JSON patch (`add`, `remove`, `replace`, `move`, `copy`, `test`). All or
/// nothing: on any error the target is left as it was (it is never modified anyway).
/// Array indexes are RFC 6901 strict (no sign, no leading zero; `-` appends).
Expected<json::value, PatchError> json_patch(const json::value& target, const json::value& ops);

/// Strategic merge patch with the directives kubectl sends (`$patch`, `$retainKeys`,
/// `$setElementOrder/<field>`, `$deleteFromPrimitiveList/<field>`), following
/// k8s.io/apimachinery/pkg/util/strategicpatch (including its element ordering: items the
/// patch names come in the patch's order, merged with the live order). `lists` gives the
/// patchStrategy/patchMergeKey of each list (Map uses keys[0]). `$patch: merge` is accepted
/// as the explicit default (kube-apiserver rejects it).
Expected<json::value, PatchError> strategic_merge_patch(const json::value& target,
                                                        const json::value& patch,
                                                        const ListStrategyResolver& lists);

/// The list strategies of the built-in kinds kubectl patches (Pod templates of Jobs:
/// containers, initContainers, env, ports, volumeMounts, volumes, ...; metadata:
/// finalizers, ownerReferences; conditions). `group`/`kind` select the type.
/// These are the strategic-merge tags (patchStrategy/patchMergeKey). Kinds without lists of
/// their own (ConfigMap, Lease, PriorityClass) and unknown kinds still resolve metadata's
/// finalizers and ownerReferences; every other list is Atomic.
ListStrategyResolver builtin_list_strategies(std::string_view group, std::string_view kind);

/// Server-side apply's view of the same built-in kinds: `+listType` / `+listMapKey`
/// (differs from the strategic tags, e.g. Job status.conditions is atomic for apply and
/// merged by type for strategic merge; container ports are keyed by containerPort AND
/// protocol, with protocol defaulting to TCP).
ListStrategyResolver builtin_apply_list_strategies(std::string_view group, std::string_view kind);

/// The atomic objects (`+structType=atomic`, `+mapType=atomic`) of the built-in kinds, for
/// server-side apply: LabelSelectors, nodeSelector, env valueFrom references, ...
AtomicObjectResolver builtin_atomic_objects(std::string_view group, std::string_view kind);

/// Server-side apply. `live` is the stored object (null when creating). `applied` is the
/// manager's configuration. The result carries updated `metadata.managedFields`. Fields
/// the manager owned before and no longer applies are removed when nobody else owns them.
/// With `force`, conflicting fields change owner instead of failing.
///
/// Semantics (sigs.k8s.io/structured-merge-diff as kube-apiserver uses it): the applied
/// configuration is merged into `live` (objects merge, list-maps merge by key, sets union,
/// atomic lists and atomic objects are replaced); the manager's entry becomes exactly the
/// fields it applied (fieldsV1); fields other managers own whose value would change are
/// conflicts (409 unless `force`, then they lose them); fields that only this manager
/// applied before and no longer applies are removed. Nulls in `applied` are dropped.
/// The server is expected to strip `status` from a main-resource apply and everything but
/// `status` from a /status apply (kube-apiserver's "reset fields") before calling.
struct ApplyRequest {
  const json::value* live = nullptr;
  const json::value* applied = nullptr;
  std::string_view manager;
  bool force = false;
  std::string_view api_version;  ///< recorded in managedFields entries
  std::string_view timestamp;    ///< RFC 3339, recorded in managedFields entries
  /// x-kubernetes-list-type of each list. Empty: builtin_apply_list_strategies() of the
  /// applied object's apiVersion/kind (every list atomic for other kinds). `metadata.*`
  /// always comes from the built-in ObjectMeta table, so CRD resolvers need not know it.
  ListStrategyResolver lists;
  /// Atomic objects. Empty: builtin_atomic_objects() of the applied object's kind.
  AtomicObjectResolver atomic_objects = {};
  /// "status" when applying to the status subresource (recorded in the entry).
  std::string_view subresource = {};
};
Expected<json::value, PatchError> server_side_apply(const ApplyRequest& request);

/// Records an ordinary (non-apply) write in managedFields under `manager` with
/// operation "Update", as kube-apiserver does for create/update/patch.
///
/// `object` is the object about to be stored, `previous` the stored one (null on create).
/// The manager gains the fields the write added or changed; every other manager loses
/// them, and everybody loses the fields the write removed. As upstream: managedFields
/// sent in `object` on a main-resource write replace the stored ones (`[]` clears them,
/// and an existing object without managedFields is not tracked); at most 10 Update
/// entries are kept (older ones fold into "ancient-changes"). List keys come from
/// builtin_apply_list_strategies() of the object's apiVersion/kind; use the overload below
/// for custom resources.
void record_update(json::value& object, const json::value* previous, std::string_view manager,
                   std::string_view api_version, std::string_view timestamp,
                   std::string_view subresource = {});

/// The same with explicit list strategies and atomic objects (custom resources: from the
/// CRD schema).
void record_update(json::value& object, const json::value* previous, std::string_view manager,
                   std::string_view api_version, std::string_view timestamp,
                   std::string_view subresource, const ListStrategyResolver& lists,
                   const AtomicObjectResolver& atomic_objects = {});

}  // namespace kueuepp::kube::patch
