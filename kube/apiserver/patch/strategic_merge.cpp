// Strategic merge patch: the entry point, maps and their directives.
//
// Follows k8s.io/apimachinery/pkg/util/strategicpatch (mergeMap and friends) as the API
// server runs it (MergeParallelList and IgnoreUnmatchedNulls on). Deliberate differences,
// all about values that upstream stores verbatim and then loses when it decodes them into
// Go structs: nulls and directive keys never reach the result (lists replaced whole
// included), and `$patch: merge` is the explicit default instead of an error.

#include "kube/apiserver/patch/strategic_merge.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "kube/apiserver/patch/errors.hpp"
#include "kube/apiserver/patch/json_order.hpp"

namespace kueuepp::kube::patch {
namespace detail::smp {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// "$setElementOrder/containers" -> "containers". upstream splits at the first '/' and
// insists on the exact prefix before it.
Expected<std::string_view, PatchError> directive_target(std::string_view key, std::string_view prefix,
                                                        Context& ctx) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos || key.substr(0, slash) != prefix) {
    return bad_request(ctx.where(key), "strategic merge patch: invalid directive key \"" + std::string(key) +
                                           "\" at " + ctx.where() + " (expected \"" + std::string(prefix) +
                                           "/<field>\")");
  }
  return key.substr(slash + 1);
}

// $patch on a map: replace (the patch is the new map), delete (the map becomes empty),
// merge (the default). Returns true when the map is final.
Expected<bool, PatchError> apply_map_directive(json::object& original, const json::object& patch, Context& ctx) {
  auto it = patch.find(kPatchDirective);
  if (it == patch.end()) return false;
  const json::string* directive = it->value().if_string();
  const std::string_view name = directive != nullptr ? std::string_view(*directive) : std::string_view();
  if (name == "replace") {
    auto replaced = clean_object(patch, ctx);
    if (!replaced) return unexpected(std::move(replaced).error());
    original = std::move(*replaced);
    return true;
  }
  if (name == "delete") {
    original.clear();
    return true;
  }
  if (name == "merge") return false;
  return bad_request(ctx.where(), "strategic merge patch: unknown $patch directive " + json::dump(it->value()) +
                                      " at " + ctx.where() + " (expected replace, delete or merge)");
}

// $retainKeys: every other key of the original is cleared; the patch may only set keys
// that the list retains.
Expected<void, PatchError> apply_retain_keys(json::object& original, const json::object& patch, Context& ctx) {
  auto it = patch.find(kRetainKeys);
  if (it == patch.end()) return {};
  const json::array* keep = it->value().if_array();
  if (keep == nullptr) {
    return bad_request(ctx.where(), "strategic merge patch: $retainKeys at " + ctx.where() + " must be a list");
  }
  auto retained = [keep](std::string_view key) {
    return std::any_of(keep->begin(), keep->end(), [key](const json::value& k) {
      return k.is_string() && std::string_view(k.get_string()) == key;
    });
  };
  for (const auto& member : patch) {
    const std::string_view key = member.key();
    if (member.value().is_null() || key == kRetainKeys || key == kPatchDirective ||
        starts_with(key, kDeleteFromPrimitiveList) || starts_with(key, kSetElementOrder)) {
      continue;
    }
    if (!retained(key)) {
      return bad_request(ctx.where(key), "strategic merge patch: \"" + std::string(key) + "\" at " + ctx.where() +
                                             " is set by the patch but not listed in $retainKeys");
    }
  }
  for (auto m = original.begin(); m != original.end();) {
    if (retained(m->key())) {
      ++m;
    } else {
      m = original.stable_erase(m);
    }
  }
  return {};
}

// The list at `field` of `object`, or nullptr; an error when it is something else.
Expected<const json::array*, PatchError> list_member(const json::object& object, std::string_view field,
                                                     Context& ctx, bool in_patch) {
  auto it = object.find(field);
  if (it == object.end()) return static_cast<const json::array*>(nullptr);
  if (const json::array* a = it->value().if_array()) return a;
  std::string what = "strategic merge patch: " + ctx.where(field) + " is a " + kind_name(it->value()) +
                     (in_patch ? " in the patch" : " in the object") + ", but $setElementOrder expects a list";
  if (in_patch) return bad_request(ctx.where(field), std::move(what));
  return invalid(ctx.where(field), std::move(what), PatchError::Cause::MergeFailed);
}

// One $setElementOrder/<field>: merges the field's patch list (if any) and puts the result
// in the order the directive gives, items it does not name keeping their live position.
Expected<void, PatchError> apply_set_element_order(json::object& original, const json::object& patch,
                                                   std::string_view directive_key, const json::value& order_value,
                                                   std::vector<std::string>& consumed, Context& ctx) {
  auto field_name = directive_target(directive_key, kSetElementOrder, ctx);
  if (!field_name) return unexpected(std::move(field_name).error());
  const std::string field(*field_name);
  const json::array* order = order_value.if_array();
  if (order == nullptr) {
    return bad_request(ctx.where(directive_key),
                       "strategic merge patch: " + std::string(directive_key) + " at " + ctx.where() + " must be a list");
  }
  auto original_list = list_member(original, field, ctx, false);
  if (!original_list) return unexpected(std::move(original_list).error());
  auto patch_list = list_member(patch, field, ctx, true);
  if (!patch_list) return unexpected(std::move(patch_list).error());
  if (*original_list == nullptr && *patch_list == nullptr) return {};

  const ListStrategy strategy = ctx.list_strategy(field);
  const std::string_view merge_key = merge_key_of(strategy);
  if (*patch_list != nullptr) {
    if (auto valid = validate_set_order(**patch_list, *order, merge_key, ctx, field); !valid) {
      return unexpected(std::move(valid).error());
    }
  }
  const json::array empty;
  const json::array& live = *original_list != nullptr ? **original_list : empty;

  json::array merged;
  if (*patch_list == nullptr) {
    merged = live;
  } else if (*original_list == nullptr) {
    auto cleaned = clean_list(**patch_list, ctx);
    if (!cleaned) return unexpected(std::move(cleaned).error());
    merged = std::move(*cleaned);
  } else {
    merged = live;
    if (strategy.kind == ListStrategy::Kind::Atomic) {
      auto cleaned = clean_list(**patch_list, ctx);
      if (!cleaned) return unexpected(std::move(cleaned).error());
      merged = std::move(*cleaned);
    } else if (auto m = merge_list(merged, **patch_list, strategy, false, ctx, field); !m) {
      return unexpected(std::move(m).error());
    }
  }

  auto kind = element_kind(live, *patch_list != nullptr ? **patch_list : empty, ctx, field);
  if (!kind) return unexpected(std::move(kind).error());
  const std::string_view key = *kind == boost::json::kind::object ? merge_key : std::string_view();
  json::array named, others;
  if (auto p = partition(merged, *order, key, named, others, ctx, field); !p) return unexpected(std::move(p).error());
  auto ordered = normalize_order(std::move(named), std::move(others), *order, live, key, ctx, field);
  if (!ordered) return unexpected(std::move(ordered).error());
  original[field] = std::move(*ordered);
  consumed.push_back(field);
  return {};
}

Expected<void, PatchError> apply_set_element_orders(json::object& original, const json::object& patch,
                                                    std::vector<std::string>& consumed, Context& ctx) {
  for (const auto& member : patch) {
    if (!starts_with(member.key(), kSetElementOrder)) continue;
    if (auto done = apply_set_element_order(original, patch, member.key(), member.value(), consumed, ctx); !done) {
      return done;
    }
  }
  return {};
}

// One ordinary member of the patch (or a $deleteFromPrimitiveList/ list).
Expected<void, PatchError> merge_member(json::object& original, std::string_view patch_key, const json::value& value,
                                        Context& ctx) {
  std::string_view key = patch_key;
  bool delete_list = false;
  if (starts_with(patch_key, kDeleteFromPrimitiveList)) {
    auto target = directive_target(patch_key, kDeleteFromPrimitiveList, ctx);
    if (!target) return unexpected(std::move(target).error());
    key = *target;
    delete_list = true;
  }
  if (value.is_null()) {  // null deletes (upstream does this for a null delete list too)
    original.stable_erase(key);
    return {};
  }
  auto it = original.find(key);
  const bool same_container_kind =
      it != original.end() && ((it->value().is_object() && value.is_object()) ||
                               (it->value().is_array() && value.is_array()));
  if (!same_container_kind) {
    if (delete_list) return {};  // nothing to delete from
    if (it != original.end() && !value.is_object() && !value.is_array()) {
      it->value() = value;  // a scalar replaces whatever was there
      return {};
    }
    Context::Descend in(ctx, key);
    if (!in.ok()) return too_deep(ctx.where());
    auto fresh = fresh_value(value, ctx);
    if (!fresh) return unexpected(std::move(fresh).error());
    if (*fresh) {
      original[key] = std::move(**fresh);
    } else {
      original.stable_erase(key);
    }
    return {};
  }
  if (value.is_object()) {
    Context::Descend in(ctx, key);
    if (!in.ok()) return too_deep(ctx.where());
    return merge_map(it->value().get_object(), value.get_object(), ctx);
  }
  const ListStrategy strategy = ctx.list_strategy(key);
  if (strategy.kind == ListStrategy::Kind::Atomic && !delete_list) {
    // Replaced whole. upstream stores the patch list verbatim and its Go decoding drops
    // nulls and directive keys; here the cleaning does.
    auto cleaned = clean_list(value.get_array(), ctx);
    if (!cleaned) return unexpected(std::move(cleaned).error());
    it->value() = std::move(*cleaned);
    return {};
  }
  return merge_list(it->value().get_array(), value.get_array(), strategy, delete_list, ctx, key);
}

}  // namespace

// ---- Context -------------------------------------------------------------------------

ListStrategy Context::list_strategy(std::string_view key) {
  if (!lists_) return {};
  path_.emplace_back(key);
  ListStrategy s = lists_(FieldPath(path_));
  path_.pop_back();
  return s;
}

std::string Context::where(std::string_view key) const {
  std::string out;
  for (const auto& p : path_) out += "." + p;
  if (!key.empty()) out += "." + std::string(key);
  return out.empty() ? "." : out;
}

Context::Descend::Descend(Context& ctx, std::string_view key) : ctx_(ctx) {
  ctx_.path_.emplace_back(key);
  ok_ = ++ctx_.depth_ <= kMaxDepth;
}

Context::Descend::~Descend() {
  ctx_.path_.pop_back();
  --ctx_.depth_;
}

std::string_view merge_key_of(const ListStrategy& strategy) {
  if (strategy.kind != ListStrategy::Kind::Map || strategy.keys.empty()) return {};
  return strategy.keys.front();
}

// ---- maps ----------------------------------------------------------------------------

Expected<void, PatchError> merge_map(json::object& original, const json::object& patch, Context& ctx) {
  auto final_map = apply_map_directive(original, patch, ctx);
  if (!final_map) return unexpected(std::move(final_map).error());
  if (*final_map) return {};
  if (auto r = apply_retain_keys(original, patch, ctx); !r) return r;

  // Lists ordered by $setElementOrder are merged there; their patch members are consumed.
  std::vector<std::string> consumed;
  if (auto o = apply_set_element_orders(original, patch, consumed, ctx); !o) return o;

  for (const auto& member : patch) {
    const std::string_view key = member.key();
    if (key == kPatchDirective || key == kRetainKeys || starts_with(key, kSetElementOrder)) continue;
    if (std::find(consumed.begin(), consumed.end(), key) != consumed.end()) continue;
    if (auto m = merge_member(original, key, member.value(), ctx); !m) return m;
  }
  return {};
}

Expected<std::optional<json::value>, PatchError> fresh_value(const json::value& patch, Context& ctx) {
  if (const json::object* o = patch.if_object()) {
    // upstream drops a directive object that has nothing to merge with.
    if (const json::value* d = json::find(patch, kPatchDirective);
        d != nullptr && d->is_string() && d->get_string() == "delete") {
      return std::optional<json::value>();
    }
    json::object fresh;
    if (auto m = merge_map(fresh, *o, ctx); !m) return unexpected(std::move(m).error());
    return std::optional<json::value>(json::value(std::move(fresh)));
  }
  if (const json::array* a = patch.if_array()) {
    auto cleaned = clean_list(*a, ctx);
    if (!cleaned) return unexpected(std::move(cleaned).error());
    return std::optional<json::value>(json::value(std::move(*cleaned)));
  }
  return std::optional<json::value>(patch);
}

}  // namespace detail::smp

Expected<json::value, PatchError> strategic_merge_patch(const json::value& target, const json::value& patch,
                                                        const ListStrategyResolver& lists) {
  const json::object* p = patch.if_object();
  if (p == nullptr) {
    return detail::bad_request("", std::string("strategic merge patch: the patch must be a JSON object, got ") +
                                       detail::kind_name(patch));
  }
  json::object result;
  if (const json::object* t = target.if_object()) {
    result = *t;
  } else if (!target.is_null()) {
    return detail::invalid("", std::string("strategic merge patch: the target must be a JSON object, got ") +
                                   detail::kind_name(target),
                           PatchError::Cause::MergeFailed);
  }
  detail::smp::Context ctx(lists);
  if (auto merged = detail::smp::merge_map(result, *p, ctx); !merged) return unexpected(std::move(merged).error());
  return json::value(std::move(result));
}

}  // namespace kueuepp::kube::patch
