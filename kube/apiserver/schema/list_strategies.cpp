// Server-side apply needs, for each list, how it merges: x-kubernetes-list-type (atomic
// when absent, as for every CRD list) and x-kubernetes-list-map-keys; and for each
// object or map whether it is owned whole (x-kubernetes-map-type: atomic).

#include "kube/apiserver/schema/node.hpp"

namespace kueuepp::kube::schema {
namespace {

// Follows object keys (property, else map value); array levels are implicit.
const Node* find_list(const Node& root, patch::FieldPath path) {
  const Node* n = &root;
  for (const std::string& key : path) {
    while (n->items) n = n->items.get();
    n = n->child(key);
    if (n == nullptr) return nullptr;
  }
  return n;
}

patch::ListStrategy strategy_of(const Node* n) {
  patch::ListStrategy s;
  if (n == nullptr || !n->list_type_set) return s;
  switch (n->list_type) {
    case cel::Shape::ListType::Atomic:
      s.kind = patch::ListStrategy::Kind::Atomic;
      break;
    case cel::Shape::ListType::Set:
      s.kind = patch::ListStrategy::Kind::Set;
      break;
    case cel::Shape::ListType::Map:
      s.kind = patch::ListStrategy::Kind::Map;
      s.keys = n->list_map_keys;
      break;
  }
  return s;
}

}  // namespace

patch::AtomicObjectResolver atomic_objects(SchemaPtr schema) {
  return [schema = std::move(schema)](patch::FieldPath path) {
    if (!schema) return false;
    const Node* n = find_list(schema->root, path);
    return n != nullptr && n->map_type == "atomic";
  };
}

patch::ListStrategyResolver list_strategies(SchemaPtr schema) {
  return [schema = std::move(schema)](patch::FieldPath path) {
    if (!schema) return patch::ListStrategy{};
    return strategy_of(find_list(schema->root, path));
  };
}

}  // namespace kueuepp::kube::schema
