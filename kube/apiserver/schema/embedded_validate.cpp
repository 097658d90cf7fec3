// x-kubernetes-embedded-resource objects must carry apiVersion and kind
// (apiextensions' schema/objectmeta.Validate with isResourceRoot=false: the resource
// root's own TypeMeta is checked by the API server, not here).

#include "kube/apiserver/schema/field_errors.hpp"
#include "kube/apiserver/schema/path.hpp"
#include "kube/apiserver/schema/unchanged_parts.hpp"
#include "kube/apiserver/schema/json_text.hpp"
#include "kube/apiserver/schema/validators.hpp"

namespace kueuepp::kube::schema {
namespace {

namespace fe = field_errors;

class Embedded {
 public:
  Embedded(const UnchangedParts& unchanged, std::vector<FieldError>& out) : unchanged_(unchanged), out_(out) {}

  void visit(const Node& s, const json::value& v) {
    if (unchanged_.contains(v)) return;  // passes as it did
    if (const json::object* o = v.if_object()) {
      if (s.embedded_resource) check(*o);
      if (!s.subtree_has_embedded) return;
      for (const auto& kv : *o) {
        std::string_view k = text(kv.key());
        if (const Node* p = s.property(k)) {
          PathScope scope(path_, PathStack::Kind::Field, k);
          visit(*p, kv.value());
        } else if (s.additional_properties) {
          PathScope scope(path_, PathStack::Kind::Key, k);
          visit(*s.additional_properties, kv.value());
        }
      }
    } else if (const json::array* a = v.if_array()) {
      if (!s.items || !(s.items->embedded_resource || s.items->subtree_has_embedded)) return;
      for (std::size_t i = 0; i < a->size(); ++i) {
        PathScope scope(path_, PathStack::Kind::Index, {}, i);
        visit(*s.items, (*a)[i]);
      }
    }
  }

 private:
  std::string child(std::string_view name) {
    PathScope scope(path_, PathStack::Kind::Field, name);
    return path_.field_path();
  }

  void check(const json::object& o) {
    if (!o.contains("apiVersion")) out_.push_back(fe::required(child("apiVersion"), "must not be empty"));
    if (!o.contains("kind")) out_.push_back(fe::required(child("kind"), "must not be empty"));
    for (const auto& kv : o) {
      std::string_view k = text(kv.key());
      if (k != "apiVersion" && k != "kind") continue;
      const json::value& v = kv.value();
      if (!v.is_string()) {
        out_.push_back(fe::invalid(child(k), go_value(&v), "must be a string"));
      } else if (v.get_string().empty()) {
        out_.push_back(fe::invalid(child(k), "\"\"", "must not be empty"));
      } else if (k == "apiVersion") {
        std::string_view gv = text(v.get_string());
        std::size_t slash = gv.find('/');
        if (slash != std::string_view::npos && gv.find('/', slash + 1) != std::string_view::npos) {
          out_.push_back(fe::invalid(child(k), go_quote(gv), "unexpected GroupVersion string: " + std::string(gv)));
        }
      }
    }
  }

  PathStack path_;
  const UnchangedParts& unchanged_;
  std::vector<FieldError>& out_;
};

}  // namespace

void validate_embedded_resources(const Node& root, const json::value& object, const UnchangedParts& unchanged,
                                 std::vector<FieldError>& out) {
  Embedded(unchanged, out).visit(root, object);
}

}  // namespace kueuepp::kube::schema
