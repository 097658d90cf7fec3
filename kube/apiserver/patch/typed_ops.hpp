#pragma once

// The structured-merge-diff operations server-side apply and managedFields are built on,
// over JSON values plus an ApplySchema: the field set of an applied configuration, the
// comparison of two objects, the merge of a configuration into a live object, and the
// pruning of fields a manager stopped applying.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/patch/apply_schema.hpp"
#include "kube/apiserver/patch/field_set.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::detail {

/// The position of a walk: field names for the schema (list levels skipped) and the full
/// path of path elements for field sets.
struct WalkPath {
  std::vector<std::string> fields;
  Path elements;
  int depth = 0;

  void push_field(std::string_view name) {
    fields.emplace_back(name);
    elements.push_back(PathElement::of_field(name));
    ++depth;
  }
  void pop_field() {
    fields.pop_back();
    elements.pop_back();
    --depth;
  }
  void push_element(PathElement pe) {
    elements.push_back(std::move(pe));
    ++depth;
  }
  void pop_element() {
    elements.pop_back();
    --depth;
  }
  FieldPath schema_path() const { return FieldPath(fields); }
  /// Room for `levels` levels, allocated once rather than grown (and moved) level by level.
  void reserve(std::size_t levels) {
    fields.reserve(levels);
    elements.reserve(levels);
  }
};

/// The fields an applied configuration sets (structured-merge-diff ToFieldSet): leaves,
/// atomic lists and objects, empty objects, and every element of a non-atomic list.
/// Fails (400) on duplicate list keys, list-map elements without their keys, and nesting
/// deeper than kMaxDepth.
Expected<FieldSet, PatchError> applied_field_set(const json::value& config, const ApplySchema& schema);

/// What changed from `before` to `after` (both objects; absent members are absent).
struct Comparison {
  FieldSet added;
  FieldSet modified;
  FieldSet removed;
};
/// `ignore_managed_fields`: metadata.managedFields is skipped on both sides (what the
/// write path compares without copying the objects to drop it). `changeable`: only these
/// top-level members are compared, the caller knowing the others equal (empty: all).
Comparison compare_objects(const json::value& before, const json::value& after, const ApplySchema& schema,
                           bool ignore_managed_fields = false, std::span<const std::string_view> changeable = {});

/// What compare_objects finds, one path at a time, for a caller that only needs to look
/// at each (rather than have the field sets built).
class ChangeSink {
 public:
  enum class Change { Added, Modified, Removed };
  /// A path added, modified or removed (as Comparison would have it). False stops the
  /// walk: the caller knows what it needed.
  virtual bool on_change(Change change, std::span<const PathElement> path) = 0;

 protected:
  ~ChangeSink() = default;
};

/// compare_objects reporting to `sink`; false when the sink stopped it.
bool compare_objects(const json::value& before, const json::value& after, const ApplySchema& schema,
                     ChangeSink& sink, bool ignore_managed_fields = false,
                     std::span<const std::string_view> changeable = {});

/// `config` merged into `live`: objects merge, list-maps and sets merge by element (in
/// structured-merge-diff's order), everything else (atomic lists and objects, scalars)
/// is replaced. `config` must have passed applied_field_set.
json::value merge_applied(const json::value& live, const json::value& config, const ApplySchema& schema);

/// Removes from `merged` what `last` (the manager's previous set) holds and `managed`
/// (everybody's sets, including the manager's new one) no longer does. Named fields count
/// as held when anything below them is.
void prune_unowned(json::value& merged, const FieldSet& last, const FieldSet& managed, const ApplySchema& schema);

/// Removes null members of objects, recursively (an applied null means "unset").
json::value without_nulls(const json::value& v);

}  // namespace kueuepp::kube::patch::detail
