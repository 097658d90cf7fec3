// core/v1 Namespace: the metadata.name label, the "kubernetes" finalizer and phase
// Active on create, Terminating once deletion starts (the namespace controller then
// empties it and removes the finalizer).

#include <algorithm>
#include <set>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kNameLabel = "kubernetes.io/metadata.name";

class NamespaceStrategy final : public BuiltinStrategy {
 public:
  NamespaceStrategy() : BuiltinStrategy("", "Namespace") {}

  Problems name_problems(std::string_view name) const override { return dns1123_label_problems(name); }

  void prepare_for_create(json::object& obj, const WriteContext&) const override {
    set_name_label(obj);
    std::set<std::string> finalizers{"kubernetes"};
    if (const json::value* f = at(obj, {"spec", "finalizers"}); f != nullptr && f->is_array()) {
      for (const auto& v : f->as_array()) {
        if (v.is_string()) finalizers.insert(std::string(v.get_string()));
      }
    }
    json::array list;
    for (const auto& f : finalizers) list.emplace_back(f);
    object_member(obj, "spec")["finalizers"] = std::move(list);
    obj["status"] = json::object{{"phase", "Active"}};
  }

  void prepare_for_update(json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    BuiltinStrategy::prepare_for_update(obj, old, ctx);
    set_name_label(obj);
    // spec.finalizers change only through the finalize subresource (the namespace controller).
    if (const json::value* spec = old.if_contains("spec")) {
      obj["spec"] = *spec;
    }
  }

  bool holds_deletion(const json::object& obj) const override {
    if (BuiltinStrategy::holds_deletion(obj)) return true;
    const json::value* f = at(obj, {"spec", "finalizers"});
    return f != nullptr && f->is_array() && !f->as_array().empty();
  }

  void prepare_for_delete(json::object& obj) const override {
    object_member(obj, "status")["phase"] = "Terminating";
  }

  std::vector<std::string> selectable_fields() const override { return {"status.phase"}; }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Status", "string", "", "The status of the namespace", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""}};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    const json::value* phase = at(obj, {"status", "phase"});
    return json::array{phase != nullptr ? *phase : json::value(""), json::value(age_of(obj))};
  }

 private:
  static void set_name_label(json::object& obj) {
    json::object& meta = metadata_of(obj);
    std::string name(meta_string(obj, "name"));
    object_member(meta, "labels")[kNameLabel] = name;
  }
};

}  // namespace

StrategyPtr make_namespace_strategy() { return std::make_shared<NamespaceStrategy>(); }

}  // namespace kueuepp::kube::server
