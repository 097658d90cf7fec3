// Pruning (apiextensions-apiserver's schema/pruning) followed by the removal of
// non-nullable nulls without a default (schema/defaulting.PruneNonNullableNullsWithoutDefaults),
// the two steps kube-apiserver's decoder runs before defaulting.

#include <algorithm>

#include "kube/apiserver/schema/json_text.hpp"
#include "kube/apiserver/schema/node.hpp"
#include "kube/apiserver/schema/path.hpp"

namespace kueuepp::kube::schema {
namespace {

constexpr int kMaxDepth = 1000;  // JSON nesting handled; deeper arrays are left alone

bool meta_field(std::string_view k) { return k == "apiVersion" || k == "kind" || k == "metadata"; }

class Pruner {
 public:
  std::vector<std::string> paths;

  // `s` may be null (no schema: every object key below is unknown).
  void prune(json::value& x, const Node* s, bool embedded, int depth) {
    if (depth > kMaxDepth) return;
    if (s != nullptr && s->preserve_unknown_fields) return skip_prune(x, *s, embedded, depth);
    if (json::object* o = x.if_object()) {
      if (s == nullptr) {
        for (const auto& kv : *o) record(text(kv.key()));
        o->clear();
        return;
      }
      for (auto it = o->begin(); it != o->end();) {
        std::string_view k(it->key().data(), it->key().size());
        if (embedded && meta_field(k)) {
          ++it;
          continue;
        }
        if (const Node* child = s->child(k)) {
          PathScope scope(path_, PathStack::Kind::Field, k);
          prune(it->value(), child, child->embedded_resource, depth + 1);
          ++it;
        } else {
          // At the resource root apiVersion/kind/metadata never count as unknown.
          if (!meta_field(k) || !path_.empty()) record(text(it->key()));
          it = o->stable_erase(it);
        }
      }
    } else if (json::array* a = x.if_array()) {
      const Node* items = s != nullptr ? s->items.get() : nullptr;
      for (std::size_t i = 0; i < a->size(); ++i) {
        PathScope scope(path_, PathStack::Kind::Index, {}, i);
        prune((*a)[i], items, items != nullptr && items->embedded_resource, depth + 1);
      }
    }
  }

 private:
  // x-kubernetes-preserve-unknown-fields: unknown keys stay, declared ones are pruned.
  void skip_prune(json::value& x, const Node& s, bool embedded, int depth) {
    if (json::object* o = x.if_object()) {
      for (auto& kv : *o) {
        std::string_view k(kv.key().data(), kv.key().size());
        if (embedded && meta_field(k)) continue;
        if (const Node* child = s.child(k)) {
          PathScope scope(path_, PathStack::Kind::Field, k);
          prune(kv.value(), child, child->embedded_resource, depth + 1);
        }
      }
    } else if (json::array* a = x.if_array()) {
      if (!s.items) return;
      for (std::size_t i = 0; i < a->size(); ++i) {
        PathScope scope(path_, PathStack::Kind::Index, {}, i);
        if (s.items->preserve_unknown_fields) {
          skip_prune((*a)[i], *s.items, s.items->embedded_resource, depth + 1);
        } else {
          prune((*a)[i], s.items.get(), s.items->embedded_resource, depth + 1);
        }
      }
    }
  }

  void record(std::string_view key) {
    PathScope scope(path_, PathStack::Kind::Field, key);
    paths.push_back(path_.field_path());
  }

  PathStack path_;
};

// Only a null with a schema goes: nothing below a value without one (metadata's
// managedFields, say) is looked at.
void prune_nulls(json::value& x, const Node* s, int depth) {
  if (depth > kMaxDepth || s == nullptr) return;
  if (json::object* o = x.if_object()) {
    for (auto it = o->begin(); it != o->end();) {
      // Other scalars neither go nor have anything below: no need to look up their schema.
      if (!it->value().is_null() && !it->value().is_structured()) {
        ++it;
        continue;
      }
      std::string_view k(it->key().data(), it->key().size());
      const Node* child = s->child(k);
      if (it->value().is_null() && child != nullptr && !child->nullable && !child->default_value) {
        it = o->stable_erase(it);
      } else {
        prune_nulls(it->value(), child, depth + 1);
        ++it;
      }
    }
  } else if (json::array* a = x.if_array()) {
    const Node* items = s->items.get();
    if (items == nullptr) return;
    for (auto& e : *a) prune_nulls(e, items, depth + 1);
  }
}

}  // namespace

std::vector<std::string> prune(const Schema& schema, json::value& object) {
  Pruner p;
  // The resource root is treated as an embedded resource: its TypeMeta and ObjectMeta
  // are decoded separately and never pruned here.
  p.prune(object, &schema.root, true, 0);
  prune_nulls(object, &schema.root, 0);
  std::sort(p.paths.begin(), p.paths.end());
  return std::move(p.paths);
}

}  // namespace kueuepp::kube::schema
