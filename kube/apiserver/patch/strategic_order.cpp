// Strategic merge patch: the order of merged lists.
//
// upstream (normalizeElementOrder / mergeSortedSlice) sorts the items the patch names by
// the patch's (or $setElementOrder's) order and the live-only items by their live order,
// then interleaves them: a live-only item goes before a patch item only when both are in
// the live list and the live item came first there. So items new to the list come before
// the live-only items that follow them, e.g. live [a, b] + patch [c] gives [c, a, b].

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kube/apiserver/patch/errors.hpp"
#include "kube/apiserver/patch/strategic_merge.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::patch::detail::smp {
namespace {

using Cause = PatchError::Cause;

Unexpected<PatchError> missing_key(Context& ctx, std::string_view key, std::string_view merge_key,
                                   const json::value& element) {
  return invalid(ctx.where(key),
                 "strategic merge patch: " + ctx.where(key) + ": element " + json::dump(element).substr(0, 120) +
                     " does not contain the merge key \"" + std::string(merge_key) + "\"",
                 Cause::MergeFailed);
}

// With a merge key every element must be an object carrying it (upstream
// validateMergeKeyInLists).
Expected<void, PatchError> require_keys(const json::array& list, std::string_view merge_key, Context& ctx,
                                        std::string_view key) {
  if (merge_key.empty()) return {};
  for (const auto& v : list) {
    if (json::find(v, merge_key) == nullptr) return missing_key(ctx, key, merge_key, v);
  }
  return {};
}

// Stable sort of `items` by their position in `order` (items it lacks keep their place
// after the ones it has).
json::array sort_by(json::array items, const json::array& order, std::string_view merge_key) {
  std::vector<std::pair<long, std::size_t>> rank;
  rank.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const long at = index_of(order, items[i], merge_key);
    rank.emplace_back(at < 0 ? static_cast<long>(order.size()) : at, i);
  }
  std::stable_sort(rank.begin(), rank.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  json::array sorted;
  sorted.reserve(items.size());
  for (const auto& r : rank) sorted.push_back(std::move(items[r.second]));
  return sorted;
}

bool matches(const json::value& a, const json::value& b, std::string_view merge_key) {
  if (merge_key.empty()) return json::json_equal(a, b);
  const json::value* ka = json::find(a, merge_key);
  const json::value* kb = json::find(b, merge_key);
  if (ka == nullptr || kb == nullptr) return ka == kb;  // upstream compares nil == nil
  return json::json_equal(*ka, *kb);
}

}  // namespace

long index_of(const json::array& list, const json::value& item, std::string_view merge_key) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (matches(list[i], item, merge_key)) return static_cast<long>(i);
  }
  return -1;
}

Expected<void, PatchError> partition(const json::array& merged, const json::array& by, std::string_view merge_key,
                                     json::array& present, json::array& others, Context& ctx, std::string_view key) {
  present.reserve(merged.size());
  others.reserve(merged.size());
  for (const auto& v : merged) {
    if (!merge_key.empty() && json::find(v, merge_key) == nullptr) return missing_key(ctx, key, merge_key, v);
    if (index_of(by, v, merge_key) >= 0) {
      present.push_back(v);
    } else {
      others.push_back(v);
    }
  }
  return {};
}

Expected<json::array, PatchError> normalize_order(json::array patch_items, json::array server_only,
                                                  const json::array& patch_order, const json::array& server_order,
                                                  std::string_view merge_key, Context& ctx, std::string_view key) {
  for (const json::array* list : {&std::as_const(patch_items), &patch_order, &std::as_const(server_only)}) {
    if (auto r = require_keys(*list, merge_key, ctx, key); !r) return unexpected(std::move(r).error());
  }
  json::array right = sort_by(std::move(patch_items), patch_order, merge_key);
  json::array left = sort_by(std::move(server_only), server_order, merge_key);

  json::array out;
  out.reserve(left.size() + right.size());
  std::size_t i = 0, j = 0;
  while (i < left.size() || j < right.size()) {
    if (i == left.size()) {
      out.push_back(std::move(right[j++]));
      continue;
    }
    if (j == right.size()) {
      out.push_back(std::move(left[i++]));
      continue;
    }
    const long li = index_of(server_order, left[i], merge_key);
    const long ri = index_of(server_order, right[j], merge_key);
    if (li >= 0 && ri >= 0 && li < ri) {
      out.push_back(std::move(left[i++]));
    } else {
      out.push_back(std::move(right[j++]));
    }
  }
  return out;
}

Expected<void, PatchError> validate_set_order(const json::array& patch_list, const json::array& order,
                                              std::string_view merge_key, Context& ctx, std::string_view key) {
  if (patch_list.empty() || order.empty()) return {};
  std::vector<const json::value*> items;  // deletions do not take part in the order
  for (const auto& v : patch_list) {
    const json::value* d = json::find(v, kPatchDirective);
    if (!merge_key.empty() && d != nullptr && d->is_string() && d->get_string() == "delete") continue;
    items.push_back(&v);
  }
  std::size_t p = 0, s = 0;
  while (p < items.size() && s < order.size()) {
    if (json::find(*items[p], kPatchDirective) != nullptr) {
      ++p;
      continue;
    }
    if (!merge_key.empty()) {
      for (const json::value* v : {items[p], &order[s]}) {
        if (json::find(*v, merge_key) == nullptr) return missing_key(ctx, key, merge_key, *v);
      }
    }
    if (matches(*items[p], order[s], merge_key)) ++p;
    ++s;
  }
  if (p < items.size()) {
    return bad_request(ctx.where(key), "strategic merge patch: the order of the patch list " + ctx.where(key) +
                                           " doesn't match its $setElementOrder list");
  }
  return {};
}

}  // namespace kueuepp::kube::patch::detail::smp
