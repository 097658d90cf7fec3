// Strategic merge patch: lists with a merge strategy.
//
// Primitive lists (patchStrategy merge without a key) become the union of both lists;
// lists of objects merge element by element on the merge key, with `$patch` elements
// deleting (`delete`) or replacing the whole list (`replace`). The result is then ordered
// like upstream: items the patch names in the patch's order, interleaved with the live
// items the patch does not name (strategic_order.cpp).

#include <string>
#include <utility>

#include "kube/apiserver/patch/errors.hpp"
#include "kube/apiserver/patch/json_order.hpp"
#include "kube/apiserver/patch/strategic_merge.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::patch::detail::smp {
namespace {

using Cause = PatchError::Cause;

// Numbers of any representation are one kind for the "same element type" rule.
boost::json::kind normalized_kind(const json::value& v) {
  if (v.is_int64() || v.is_uint64() || v.is_double()) return boost::json::kind::double_;
  return v.kind();
}

Unexpected<PatchError> merge_failed(Context& ctx, std::string_view key, const std::string& what) {
  return invalid(ctx.where(key), "strategic merge patch: " + ctx.where(key) + ": " + what, Cause::MergeFailed);
}

// The merge key value of a list element, or an error naming the element.
Expected<const json::value*, PatchError> key_value(const json::value& element, std::string_view merge_key,
                                                   const char* which, std::size_t index, Context& ctx,
                                                   std::string_view key) {
  const json::value* v = json::find(element, merge_key);
  if (v == nullptr) {
    return merge_failed(ctx, key, std::string(which) + " element " + std::to_string(index) + " " +
                                      json::dump(element).substr(0, 120) + " does not contain the merge key \"" +
                                      std::string(merge_key) + "\"");
  }
  return v;
}

// The first element of `list` whose merge key equals `value`, or -1.
Expected<long, PatchError> find_by_key(const json::array& list, std::string_view merge_key, const json::value& value,
                                       Context& ctx, std::string_view key) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) {
      return merge_failed(ctx, key, "element " + std::to_string(i) + " is a " + kind_name(list[i]) + ", not an object");
    }
    const json::value* k = json::find(list[i], merge_key);
    if (k != nullptr && json::json_equal(*k, value)) return static_cast<long>(i);
  }
  return -1L;
}

// Union of primitives, first occurrence wins (the order is fixed later anyway).
void append_unique(json::array& list, const json::array& more) {
  for (const auto& v : more) {
    bool seen = false;
    for (const auto& have : list) {
      if (json::json_equal(have, v)) {
        seen = true;
        break;
      }
    }
    if (!seen) list.push_back(v);
  }
  // The live list may itself hold duplicates; upstream's union removes them as well.
  for (std::size_t i = 0; i < list.size(); ++i) {
    for (std::size_t j = i + 1; j < list.size();) {
      if (json::json_equal(list[i], list[j])) {
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        ++j;
      }
    }
  }
}

// $deleteFromPrimitiveList: every occurrence of every listed value goes.
void delete_values(json::array& list, const json::array& remove) {
  json::array kept;
  kept.reserve(list.size());
  for (auto& v : list) {
    bool drop = false;
    for (const auto& r : remove) {
      if (json::json_equal(v, r)) {
        drop = true;
        break;
      }
    }
    if (!drop) kept.push_back(std::move(v));
  }
  list = std::move(kept);
}

// Handles the `$patch` elements of an object list: `delete` removes the live elements
// with that key, `replace` makes the patch's plain elements the whole list. Returns the
// plain elements that still have to be merged.
Expected<json::array, PatchError> apply_element_directives(json::array& original, const json::array& patch,
                                                           std::string_view merge_key, Context& ctx,
                                                           std::string_view key) {
  json::array plain;
  bool replace = false;
  for (std::size_t i = 0; i < patch.size(); ++i) {
    const json::value* directive = json::find(patch[i], kPatchDirective);
    if (directive == nullptr) {
      plain.push_back(patch[i]);
      continue;
    }
    const std::string_view name =
        directive->is_string() ? std::string_view(directive->get_string()) : std::string_view();
    if (name == "delete") {
      auto value = key_value(patch[i], merge_key, "patch", i, ctx, key);
      if (!value) return unexpected(std::move(value).error());
      for (;;) {
        auto at = find_by_key(original, merge_key, **value, ctx, key);
        if (!at) return unexpected(std::move(at).error());
        if (*at < 0) break;
        original.erase(original.begin() + *at);
      }
    } else if (name == "replace") {
      replace = true;  // keep scanning: other directive elements are dropped
    } else if (name != "merge") {
      return bad_request(ctx.where(key), "strategic merge patch: unknown $patch directive " +
                                             json::dump(*directive) + " in list " + ctx.where(key) +
                                             " (expected replace, delete or merge)");
    }
  }
  if (!replace) return plain;
  auto cleaned = clean_list(plain, ctx);
  if (!cleaned) return unexpected(std::move(cleaned).error());
  original = std::move(*cleaned);
  return json::array();
}

// Merges each plain patch element into the live element with the same key, or appends it.
Expected<void, PatchError> merge_elements(json::array& original, const json::array& plain, std::string_view merge_key,
                                          Context& ctx, std::string_view key) {
  for (std::size_t i = 0; i < plain.size(); ++i) {
    auto value = key_value(plain[i], merge_key, "patch", i, ctx, key);
    if (!value) return unexpected(std::move(value).error());
    auto at = find_by_key(original, merge_key, **value, ctx, key);
    if (!at) return unexpected(std::move(at).error());
    // Element fields live below the list's field path (list levels are skipped).
    Context::Descend in(ctx, key);
    if (!in.ok()) return too_deep(ctx.where());
    if (*at >= 0) {
      if (auto m = merge_map(original[static_cast<std::size_t>(*at)].get_object(), plain[i].get_object(), ctx); !m) {
        return m;
      }
      continue;
    }
    auto fresh = fresh_value(plain[i], ctx);
    if (!fresh) return unexpected(std::move(fresh).error());
    if (*fresh) original.push_back(std::move(**fresh));
  }
  return {};
}

}  // namespace

Expected<std::optional<boost::json::kind>, PatchError> element_kind(const json::array& a, const json::array& b, Context& ctx,
                                                             std::string_view key) {
  std::optional<boost::json::kind> kind;
  for (const json::array* list : {&a, &b}) {
    for (const auto& v : *list) {
      if (v.is_array()) return merge_failed(ctx, key, "lists of lists are not supported");
      const boost::json::kind k = normalized_kind(v);
      if (!kind) {
        kind = k;
      } else if (*kind != k) {
        return merge_failed(ctx, key, "list element types are not identical (" + std::string(kind_name(v)) +
                                          " among other kinds)");
      }
    }
  }
  return kind;
}

Expected<void, PatchError> merge_list(json::array& original, const json::array& patch, const ListStrategy& strategy,
                                      bool delete_list, Context& ctx, std::string_view key) {
  if (original.empty() && patch.empty()) return {};
  auto kind = element_kind(original, patch, ctx, key);
  if (!kind) return unexpected(std::move(kind).error());

  if (*kind != boost::json::kind::object) {
    if (delete_list) {
      delete_values(original, patch);  // upstream returns this as is, without reordering
      return {};
    }
    const json::array server_order = original;
    append_unique(original, patch);
    json::array named, others;
    if (auto p = partition(original, patch, {}, named, others, ctx, key); !p) return p;
    auto ordered = normalize_order(std::move(named), std::move(others), patch, server_order, {}, ctx, key);
    if (!ordered) return unexpected(std::move(ordered).error());
    original = std::move(*ordered);
    return {};
  }

  const std::string_view merge_key = merge_key_of(strategy);
  if (merge_key.empty()) return merge_failed(ctx, key, "cannot merge a list of objects without a merge key");

  auto plain = apply_element_directives(original, patch, merge_key, ctx, key);
  if (!plain) return unexpected(std::move(plain).error());
  const json::array server_order = original;
  if (auto m = merge_elements(original, *plain, merge_key, ctx, key); !m) return m;

  json::array named, others;
  if (auto p = partition(original, *plain, merge_key, named, others, ctx, key); !p) return p;
  auto ordered = normalize_order(std::move(named), std::move(others), *plain, server_order, merge_key, ctx, key);
  if (!ordered) return unexpected(std::move(ordered).error());
  original = std::move(*ordered);
  return {};
}

}  // namespace kueuepp::kube::patch::detail::smp
