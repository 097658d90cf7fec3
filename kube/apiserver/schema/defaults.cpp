// Structural defaulting (apiextensions-apiserver's schema/defaulting.Default): a
// property's default is copied in when the property is absent or a non-nullable null;
// then every value is defaulted recursively, so defaults nest inside defaulted objects
// and reach array items and map values. Only properties/items/additionalProperties are
// followed: defaults inside anyOf/allOf/oneOf/not do not apply (upstream forbids them).

#include "kube/apiserver/schema/node.hpp"

namespace kueuepp::kube::schema {
namespace {

bool non_nullable_null(const json::value& v, const Node* s) { return v.is_null() && s != nullptr && !s->nullable; }

void default_value(json::value& x, const Node& s) {
  if (!s.subtree_has_defaults) return;
  if (json::object* o = x.if_object()) {
    for (const auto& [name, prop] : s.properties) {
      if (!prop->default_value) continue;
      auto it = o->find(name);
      if (it == o->end() || non_nullable_null(it->value(), prop.get())) (*o)[name] = *prop->default_value;
    }
    for (auto& kv : *o) {
      std::string_view key(kv.key().data(), kv.key().size());
      if (const Node* prop = s.property(key)) {
        default_value(kv.value(), *prop);
      } else if (const Node* ap = s.additional_properties.get()) {
        if (non_nullable_null(kv.value(), ap) && ap->default_value) kv.value() = *ap->default_value;
        default_value(kv.value(), *ap);
      }
    }
  } else if (json::array* a = x.if_array()) {
    const Node* items = s.items.get();
    if (items == nullptr) return;
    for (auto& e : *a) {
      if (non_nullable_null(e, items) && items->default_value) e = *items->default_value;
      default_value(e, *items);
    }
  }
}

}  // namespace

void apply_defaults(const Schema& schema, json::value& object) { default_value(object, schema.root); }

}  // namespace kueuepp::kube::schema
