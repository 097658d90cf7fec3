#pragma once

// Incremental validation (ValidateOptions::old_stamp, internal to kube/apiserver/schema). The old
// object passed validation against the same schema; a part of the new object identical
// to the old object's value at the same place (same member names, same indexes) passes
// every check that depends on nothing but the part and its place, as it did then, so the
// validation passes do not check it again. CEL transition rules also read the old object
// and still run there.
//
// "Identical" is strict: same kinds (int64 and uint64 apart, which CEL types
// differently) and the same members in the same order (CEL's map() and filter() see that
// order). The object root never is, and its metadata is never compared: the write path
// sets parts of it after validating (resourceVersion, managedFields), so the stored
// metadata is not exactly what passed.

#include <span>
#include <string_view>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::kube::schema {

class UnchangedParts {
 public:
  /// The parts of `object` identical to `reference` at the same place, found in one walk
  /// of both (none without a reference). `changeable`: the only top-level members that
  /// may differ, the caller knowing the others exact copies of the reference's (taken as
  /// identical without a walk); empty: any.
  UnchangedParts(const json::value& object, const json::value* reference,
                 std::span<const std::string_view> changeable = {});

  /// Whether `part`, a value inside the object, is identical to its reference. Only the
  /// largest such parts are known: the passes do not look below one.
  bool contains(const json::value& part) const;

 private:
  bool walk(const json::value& v, const json::value& ref, bool root);
  bool walk_object(const json::object& v, const json::object& ref, bool root);
  /// Whether a top-level member is a copy of the reference's by the caller's word.
  bool known_identical(std::string_view key) const;
  bool walk_array(const json::array& v, const json::array& ref);

  std::vector<const json::value*> parts_;  ///< sorted once the walk is done
  std::span<const std::string_view> changeable_;
};

}  // namespace kueuepp::kube::schema
