#pragma once

// What server-side apply knows about an object's shape: the list types and the atomic
// objects (from the resolvers a caller gives, or the built-in tables), and how a list
// element is identified (a key for list-maps, the value for sets).

#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/patch/field_set.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::detail {

class ApplySchema {
 public:
  /// Empty resolvers fall back to the built-in tables of `object`'s apiVersion/kind.
  /// `metadata` is always answered from the built-in ObjectMeta table, so custom resource
  /// schemas need not describe it.
  ApplySchema(const json::value& object, ListStrategyResolver lists, AtomicObjectResolver atomic_objects);

  ListStrategy list(FieldPath path) const;
  bool atomic_object(FieldPath path) const;

  /// The path element of one element of a non-atomic list. `strict` (applied
  /// configurations): list-map elements must be objects carrying every key (or its
  /// default); otherwise a best-effort key is made so that stored data never fails.
  Expected<PathElement> element(const json::value& item, const ListStrategy& strategy, bool strict) const;

 private:
  ListStrategyResolver lists_;
  AtomicObjectResolver atomic_objects_;
  ListStrategyResolver meta_lists_;
  AtomicObjectResolver meta_atomic_objects_;
};

/// "batch/v1" -> "batch", "v1" -> "".
std::string_view group_of(std::string_view api_version);

}  // namespace kueuepp::kube::patch::detail
