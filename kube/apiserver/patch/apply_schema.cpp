#include "kube/apiserver/patch/apply_schema.hpp"

#include <utility>

namespace kueuepp::kube::patch::detail {

std::string_view group_of(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

ApplySchema::ApplySchema(const json::value& object, ListStrategyResolver lists, AtomicObjectResolver atomic_objects)
    : lists_(std::move(lists)), atomic_objects_(std::move(atomic_objects)) {
  const std::string_view group = group_of(json::get_string(object, "apiVersion"));
  const std::string_view kind = json::get_string(object, "kind");
  if (!lists_) lists_ = builtin_apply_list_strategies(group, kind);
  if (!atomic_objects_) atomic_objects_ = builtin_atomic_objects(group, kind);
  // Any kind's metadata (unknown kinds resolve to "an object with metadata").
  meta_lists_ = builtin_apply_list_strategies("", "");
  meta_atomic_objects_ = builtin_atomic_objects("", "");
}

ListStrategy ApplySchema::list(FieldPath path) const {
  if (!path.empty() && path.front() == "metadata") return meta_lists_(path);
  return lists_(path);
}

bool ApplySchema::atomic_object(FieldPath path) const {
  if (!path.empty() && path.front() == "metadata") return meta_atomic_objects_(path);
  return atomic_objects_(path);
}

Expected<PathElement> ApplySchema::element(const json::value& item, const ListStrategy& strategy, bool strict) const {
  if (strategy.kind != ListStrategy::Kind::Map) return PathElement::of_value(item);
  const json::object* o = item.if_object();
  if (o == nullptr) {
    if (strict) return fail(std::string("an element of a list keyed by fields is a ") + (item.is_null() ? "null" : "non-object"));
    return PathElement::of_value(item);
  }
  json::object key;
  for (const std::string& k : strategy.keys) {
    if (auto it = o->find(k); it != o->end()) {
      key.emplace(k, it->value());
    } else if (auto d = strategy.key_defaults.find(k); d != strategy.key_defaults.end()) {
      key.emplace(k, d->value());
    } else if (strict) {
      return fail("an element omits the key field \"" + k + "\" (and it has no default)");
    }
  }
  return PathElement::of_key(std::move(key));
}

}  // namespace kueuepp::kube::patch::detail
