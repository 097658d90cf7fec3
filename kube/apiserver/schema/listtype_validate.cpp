// x-kubernetes-list-type invariants (apiextensions' schema/listtype): a `set` has no
// duplicate elements, a `map` no two elements with the same key fields. Only the second
// occurrence of a value is reported, as upstream does.

#include "kube/apiserver/schema/field_errors.hpp"
#include "kube/apiserver/schema/path.hpp"
#include "kube/apiserver/schema/unchanged_parts.hpp"
#include "kube/apiserver/schema/json_text.hpp"
#include "kube/apiserver/schema/validators.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::schema {
namespace {

namespace fe = field_errors;

// Set membership as upstream compares: scalars by Go value (int64 1 and float64 1 differ),
// objects and arrays by their JSON encoding.
bool same(const json::value& a, const json::value& b) {
  bool a_compound = a.is_object() || a.is_array();
  bool b_compound = b.is_object() || b.is_array();
  if (a_compound || b_compound) return a_compound && b_compound && json::json_equal(a, b);
  if (a.is_double() != b.is_double()) return false;
  return json::json_equal(a, b);
}

// Indices of the second occurrence of each repeated value.
std::vector<std::size_t> second_occurrences(const std::vector<const json::value*>& values) {
  std::vector<std::size_t> out;
  for (std::size_t i = 1; i < values.size(); ++i) {
    std::size_t seen = 0;
    for (std::size_t j = 0; j < i; ++j) {
      if (same(*values[i], *values[j])) ++seen;
    }
    if (seen == 1) out.push_back(i);
  }
  return out;
}

class ListTypes {
 public:
  ListTypes(const UnchangedParts& unchanged, std::vector<FieldError>& out) : unchanged_(unchanged), out_(out) {}

  void visit(const Node& s, const json::value& v) {
    if (unchanged_.contains(v)) return;  // passes as it did
    if (const json::array* a = v.if_array()) {
      array(s, *a);
      return;
    }
    const json::object* o = v.if_object();
    if (o == nullptr || !s.subtree_has_list_invariants) return;
    if (s.additional_properties) {
      for (const auto& kv : *o) {
        if (s.property(text(kv.key())) != nullptr) continue;
        PathScope scope(path_, PathStack::Kind::Key, text(kv.key()));
        visit(*s.additional_properties, kv.value());
      }
    }
    for (const auto& kv : *o) {
      const Node* p = s.property(text(kv.key()));
      if (p == nullptr) continue;
      PathScope scope(path_, PathStack::Kind::Field, text(kv.key()));
      visit(*p, kv.value());
    }
  }

 private:
  std::string at(std::size_t i) {
    PathScope scope(path_, PathStack::Kind::Index, {}, i);
    return path_.field_path();
  }

  void array(const Node& s, const json::array& a) {
    if (s.list_type == cel::Shape::ListType::Set) {
      std::vector<const json::value*> values;
      for (const auto& e : a) values.push_back(&e);
      for (std::size_t i : second_occurrences(values)) out_.push_back(fe::duplicate(at(i), go_value(&a[i])));
    } else if (s.list_type == cel::Shape::ListType::Map) {
      map_list(s, a);
    }
    if (!s.items || !(s.items->list_type != cel::Shape::ListType::Atomic || s.items->subtree_has_list_invariants)) {
      return;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      PathScope scope(path_, PathStack::Kind::Index, {}, i);
      visit(*s.items, a[i]);
    }
  }

  void map_list(const Node& s, const json::array& a) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_null() && !a[i].is_object()) {
        out_.push_back(fe::invalid(at(i), go_value(&a[i]), "must be an object for an array of list-type map"));
        return;
      }
    }
    if (a.size() <= 1) return;
    // Element i is reported when exactly one earlier element has the same key fields.
    for (std::size_t i = 1; i < a.size(); ++i) {
      std::size_t seen = 0;
      for (std::size_t j = 0; j < i; ++j) {
        if (same_key(s, a[i], a[j])) ++seen;
      }
      if (seen == 1) out_.push_back(fe::duplicate(at(i), go_value_of_key(s, a[i])));
    }
  }

  // Whether two elements agree on every key field (absent == absent; null elements have
  // no key fields).
  static bool same_key(const Node& s, const json::value& x, const json::value& y) {
    const json::object* ox = x.if_object();
    const json::object* oy = y.if_object();
    for (const std::string& k : s.list_map_keys) {
      const json::value* vx = ox != nullptr ? ox->if_contains(k) : nullptr;
      const json::value* vy = oy != nullptr ? oy->if_contains(k) : nullptr;
      if ((vx == nullptr) != (vy == nullptr)) return false;
      if (vx != nullptr && !same(*vx, *vy)) return false;
    }
    return true;
  }

  // The duplicate's key as upstream prints it: the map of its key fields.
  static std::string go_value_of_key(const Node& s, const json::value& e) {
    json::value key = json::object();
    if (const json::object* o = e.if_object()) {
      for (const std::string& k : s.list_map_keys) {
        if (const json::value* v = o->if_contains(k)) key.get_object()[k] = *v;
      }
    }
    return go_value(&key);
  }

  PathStack path_;
  const UnchangedParts& unchanged_;
  std::vector<FieldError>& out_;
};

}  // namespace

void validate_list_types(const Node& root, const json::value& object, const UnchangedParts& unchanged,
                         std::vector<FieldError>& out) {
  ListTypes(unchanged, out).visit(root, object);
}

}  // namespace kueuepp::kube::schema
