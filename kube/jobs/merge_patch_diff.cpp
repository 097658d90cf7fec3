#include "kube/jobs/merge_patch_diff.hpp"

namespace kueuepp::kube::jobs {

json::value merge_patch_diff(const json::value& from, const json::value& to) {
  if (!from.is_object() || !to.is_object()) return from == to ? json::value(json::object{}) : to;
  const json::object& a = from.get_object();
  const json::object& b = to.get_object();
  json::object patch;
  for (const auto& [key, vb] : b) {
    const json::value* va = a.if_contains(key);
    if (va != nullptr && *va == vb) continue;
    if (vb.is_null()) {
      if (va != nullptr) patch[key] = nullptr;
      continue;
    }
    if (va != nullptr && va->is_object() && vb.is_object()) {
      json::value sub = merge_patch_diff(*va, vb);
      if (!sub.get_object().empty()) patch[key] = std::move(sub);
      continue;
    }
    patch[key] = vb;
  }
  for (const auto& [key, va] : a) {
    if (!b.contains(key)) patch[key] = nullptr;
  }
  return patch;
}

}  // namespace kueuepp::kube::jobs
