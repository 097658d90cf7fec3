// Removing what a manager stopped applying (structured-merge-diff's Updater.prune with
// addBackOwnedItems / addBackDanglingItems, folded into one walk).
//
// A field or list element is removed when the manager's previous set held it and no set
// (the manager's new one included) holds it any more; named fields are "held" as soon as
// anything below them is. Where both hold it, the walk descends to remove what is below.
// Everything the previous set never held (other managers' fields, server defaults) stays.

#include "kube/apiserver/patch/typed_ops.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

class Pruner {
 public:
  explicit Pruner(const ApplySchema& schema) : schema_(schema) {}

  void members(json::object& object, const FieldSet& last, const FieldSet* managed) {
    for (auto it = object.begin(); it != object.end();) {
      const PathElement pe = PathElement::of_field(it->key());
      path_.push_field(it->key());
      const bool remove = visit(it->value(), pe, last, managed);
      path_.pop_field();
      it = remove ? object.stable_erase(it) : it + 1;
    }
  }

 private:
  // Decides about one child; descends when both sets hold it. True: remove the child.
  bool visit(json::value& child, const PathElement& pe, const FieldSet& last, const FieldSet* managed) {
    const FieldSet::Child* in_last = find(last, pe);
    if (in_last == nullptr) return false;
    const FieldSet::Child* in_managed = managed != nullptr ? find(*managed, pe) : nullptr;
    const bool named = pe.type == PathElement::Type::Field;
    const bool held_before = in_last->member || named;
    const bool held_now = in_managed != nullptr && (in_managed->member || named);
    if (held_before && !held_now) return true;
    if (path_.depth > kMaxDepth) return false;

    const FieldSet* managed_below = in_managed != nullptr ? &in_managed->set : nullptr;
    if (json::object* o = child.if_object()) {
      if (o->empty() || schema_.atomic_object(path_.schema_path())) return false;
      members(*o, in_last->set, managed_below);
      return o->empty();  // emptied by the removal: the object goes too
    }
    if (json::array* a = child.if_array()) {
      if (a->empty()) return false;
      const ListStrategy strategy = schema_.list(path_.schema_path());
      if (strategy.kind == ListStrategy::Kind::Atomic) return false;
      items(*a, strategy, in_last->set, managed_below);
      return a->empty();
    }
    return false;
  }

  void items(json::array& list, const ListStrategy& strategy, const FieldSet& last, const FieldSet* managed) {
    json::array kept;
    kept.reserve(list.size());
    for (auto& item : list) {
      auto pe = schema_.element(item, strategy, /*strict=*/false);
      if (!pe) {
        kept.push_back(std::move(item));
        continue;
      }
      path_.push_element(*pe);
      const bool remove = visit(item, *pe, last, managed);
      path_.pop_element();
      if (!remove) kept.push_back(std::move(item));
    }
    list = std::move(kept);
  }

  static const FieldSet::Child* find(const FieldSet& set, const PathElement& pe) {
    for (const auto& c : set.children()) {
      if (c.element.compare(pe) == 0) return &c;
    }
    return nullptr;
  }

  const ApplySchema& schema_;
  WalkPath path_;
};

}  // namespace

void prune_unowned(json::value& merged, const FieldSet& last, const FieldSet& managed, const ApplySchema& schema) {
  if (last.empty()) return;
  json::object* o = merged.if_object();
  if (o == nullptr) return;
  Pruner pruner(schema);
  pruner.members(*o, last, &managed);
}

}  // namespace kueuepp::kube::patch::detail
