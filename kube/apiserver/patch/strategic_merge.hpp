#pragma once

// Internals of the strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch
// semantics), split by concept: maps and directives (strategic_merge.cpp), lists
// (strategic_list.cpp), element order (strategic_order.cpp), and the cleaning of patch
// values that are stored as they are (strategic_clean.cpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::detail::smp {

inline constexpr std::string_view kPatchDirective = "$patch";
inline constexpr std::string_view kRetainKeys = "$retainKeys";
inline constexpr std::string_view kSetElementOrder = "$setElementOrder";
inline constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";

/// Where the merge is: the field path of object keys (list levels skipped, as the list
/// strategy resolver expects) and the recursion depth.
class Context {
 public:
  explicit Context(const ListStrategyResolver& lists) : lists_(lists) {}

  /// The strategy of the list field `key` below the current path.
  ListStrategy list_strategy(std::string_view key);
  /// `.spec.template.spec`, or `.` at the root; `key` appended when given.
  std::string where(std::string_view key = {}) const;

  /// Descends into `key` for the lifetime of the guard; `ok()` is false past kMaxDepth.
  class Descend {
   public:
    Descend(Context& ctx, std::string_view key);
    Descend(const Descend&) = delete;
    Descend& operator=(const Descend&) = delete;
    ~Descend();
    bool ok() const { return ok_; }

   private:
    Context& ctx_;
    bool ok_;
  };

 private:
  const ListStrategyResolver& lists_;
  std::vector<std::string> path_;
  int depth_ = 0;
};

/// The merge key of a list strategy ("" unless Map with a key).
std::string_view merge_key_of(const ListStrategy& strategy);

// ---- maps (strategic_merge.cpp) ----

/// Merges `patch` into `original` in place, honouring $patch, $retainKeys,
/// $setElementOrder/ and $deleteFromPrimitiveList/.
Expected<void, PatchError> merge_map(json::object& original, const json::object& patch, Context& ctx);

/// The value a patch member takes where the original has nothing (or something of another
/// type): objects are merged into an empty object (so their directives are honoured),
/// lists and scalars are cleaned. nullopt: nothing is stored (e.g. `{"$patch": "delete"}`).
Expected<std::optional<json::value>, PatchError> fresh_value(const json::value& patch, Context& ctx);

// ---- lists (strategic_list.cpp) ----

/// Merges list `patch` into `original` per `strategy` (Set: union of primitives, Map:
/// by merge key with `$patch` elements), then orders the result like upstream.
/// `delete_list`: `patch` is a $deleteFromPrimitiveList list.
Expected<void, PatchError> merge_list(json::array& original, const json::array& patch, const ListStrategy& strategy,
                                      bool delete_list, Context& ctx, std::string_view key);

/// The common kind of the elements of both lists, refusing lists of lists and mixed
/// kinds (numbers of any representation are one kind). nullopt when both are empty.
Expected<std::optional<boost::json::kind>, PatchError> element_kind(const json::array& a, const json::array& b,
                                                             Context& ctx, std::string_view key);

// ---- order (strategic_order.cpp) ----

/// Index of `item` in `list`, matching maps by `merge_key` value and other values by
/// equality; -1 when absent.
long index_of(const json::array& list, const json::value& item, std::string_view merge_key);

/// Splits `merged` into the items present in `by` and the others ("server-only"),
/// keeping their order. With a merge key every item must be an object that has it.
Expected<void, PatchError> partition(const json::array& merged, const json::array& by, std::string_view merge_key,
                                     json::array& present, json::array& others, Context& ctx, std::string_view key);

/// upstream's normalizeElementOrder: `patch_items` sorted by `patch_order`, `server_only`
/// sorted by `server_order`, then interleaved, server-only items keeping their live
/// position relative to patch items that are also live.
Expected<json::array, PatchError> normalize_order(json::array patch_items, json::array server_only,
                                                  const json::array& patch_order, const json::array& server_order,
                                                  std::string_view merge_key, Context& ctx, std::string_view key);

/// Checks that the patch list's items appear in the $setElementOrder list in the same
/// relative order (deletions and directive elements skipped).
Expected<void, PatchError> validate_set_order(const json::array& patch_list, const json::array& order,
                                              std::string_view merge_key, Context& ctx, std::string_view key);

// ---- cleaning (strategic_clean.cpp) ----

/// True for members that are directives rather than data ($patch, $retainKeys,
/// $setElementOrder/..., $deleteFromPrimitiveList/...).
bool is_directive_key(std::string_view key);

/// A patch list as it is stored when nothing merges with it: elements that are directive
/// objects are dropped, objects lose null members and directive keys (recursively).
Expected<json::array, PatchError> clean_list(const json::array& list, Context& ctx);
Expected<json::object, PatchError> clean_object(const json::object& object, Context& ctx);

}  // namespace kueuepp::kube::patch::detail::smp
