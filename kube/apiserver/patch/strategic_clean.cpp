// Strategic merge patch: patch values that are stored without merging.
//
// upstream stores them nearly verbatim (minus directive objects and null members) and
// relies on decoding into Go structs to drop what is left of the directives. Documents
// here stay JSON, so the cleaning is complete: no null member and no directive key
// reaches the result.

#include <string>

#include "kube/apiserver/patch/errors.hpp"
#include "kube/apiserver/patch/strategic_merge.hpp"

namespace kueuepp::kube::patch::detail::smp {

bool is_directive_key(std::string_view key) {
  auto starts = [key](std::string_view prefix) { return key.substr(0, prefix.size()) == prefix; };
  return key == kPatchDirective || key == kRetainKeys || starts(std::string(kSetElementOrder) + "/") ||
         starts(std::string(kDeleteFromPrimitiveList) + "/");
}

namespace {

bool is_directive_object(const json::value& v) { return json::find(v, kPatchDirective) != nullptr; }

Expected<json::array, PatchError> clean_list_at(const json::array& list, Context& ctx, int depth);

Expected<json::object, PatchError> clean_object_at(const json::object& object, Context& ctx, int depth) {
  if (depth > kMaxDepth) return too_deep(ctx.where());
  json::object out;
  out.reserve(object.size());
  for (const auto& member : object) {
    const json::value& v = member.value();
    if (v.is_null() || is_directive_key(member.key())) continue;
    if (const json::object* o = v.if_object()) {
      if (is_directive_object(v)) continue;
      auto cleaned = clean_object_at(*o, ctx, depth + 1);
      if (!cleaned) return unexpected(std::move(cleaned).error());
      out.emplace(member.key(), std::move(*cleaned));
    } else if (const json::array* a = v.if_array()) {
      auto cleaned = clean_list_at(*a, ctx, depth + 1);
      if (!cleaned) return unexpected(std::move(cleaned).error());
      out.emplace(member.key(), std::move(*cleaned));
    } else {
      out.emplace(member.key(), v);
    }
  }
  return out;
}

Expected<json::array, PatchError> clean_list_at(const json::array& list, Context& ctx, int depth) {
  if (depth > kMaxDepth) return too_deep(ctx.where());
  json::array out;
  out.reserve(list.size());
  for (const auto& v : list) {
    if (const json::object* o = v.if_object()) {
      if (is_directive_object(v)) continue;
      auto cleaned = clean_object_at(*o, ctx, depth + 1);
      if (!cleaned) return unexpected(std::move(cleaned).error());
      out.emplace_back(std::move(*cleaned));
    } else if (const json::array* a = v.if_array()) {
      auto cleaned = clean_list_at(*a, ctx, depth + 1);
      if (!cleaned) return unexpected(std::move(cleaned).error());
      out.emplace_back(std::move(*cleaned));
    } else {
      out.push_back(v);
    }
  }
  return out;
}

}  // namespace

Expected<json::array, PatchError> clean_list(const json::array& list, Context& ctx) {
  return clean_list_at(list, ctx, 0);
}

Expected<json::object, PatchError> clean_object(const json::object& object, Context& ctx) {
  return clean_object_at(object, ctx, 0);
}

}  // namespace kueuepp::kube::patch::detail::smp
