// rbac.authorization.k8s.io/v1 RoleBinding and ClusterRoleBinding: kube-apiserver
// 1.28's defaults (roleRef.apiGroup and the subjects' apiGroup by kind) and validation
// (roleRef to a Role or ClusterRole of the RBAC group, and never changed afterwards;
// subjects of kind ServiceAccount, User or Group, ServiceAccounts of a
// ClusterRoleBinding with their namespace). Names are path segments, as for roles.

#include <array>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

constexpr std::array kBindingFields{
    TypedField{"roleRef", FieldType::Object},
    TypedField{"roleRef.apiGroup", FieldType::String},
    TypedField{"roleRef.kind", FieldType::String},
    TypedField{"roleRef.name", FieldType::String},
    TypedField{"subjects", FieldType::ObjectList},
    TypedField{"subjects[].kind", FieldType::String},
    TypedField{"subjects[].apiGroup", FieldType::String},
    TypedField{"subjects[].name", FieldType::String},
    TypedField{"subjects[].namespace", FieldType::String},
};

/// SetDefaults_{Role,ClusterRole}Binding and SetDefaults_Subject. roleRef is a Go
/// struct without omitempty, so it is always there.
void apply_defaults(json::object& obj) {
  json::object& ref = object_member(obj, "roleRef");
  default_string(ref, "apiGroup", kRbacGroup);
  order_members(ref, std::array<std::string_view, 3>{"apiGroup", "kind", "name"});
  json::value* subjects = obj.if_contains("subjects");
  if (subjects == nullptr || !subjects->is_array()) return;
  for (auto& s : subjects->as_array()) {
    if (!s.is_object()) continue;
    json::object& subject = s.as_object();
    std::string_view kind = string_at(subject, {"kind"});
    if (kind == "User" || kind == "Group") default_string(subject, "apiGroup", kRbacGroup);
    // A ServiceAccount's group is the core group, "", which Go omits (omitempty).
    const json::value* group = subject.if_contains("apiGroup");
    if (group != nullptr && (group->is_null() || (group->is_string() && group->get_string().empty()))) {
      subject.erase("apiGroup");
    }
  }
}

void validate_role_ref(const json::object& obj, bool cluster, FieldErrors& errs) {
  const json::value* ref_v = obj.if_contains("roleRef");
  json::object empty;
  const json::object& ref = ref_v != nullptr && ref_v->is_object() ? ref_v->as_object() : empty;
  std::string_view group = string_at(ref, {"apiGroup"});
  if (group != kRbacGroup) errs.push_back(not_supported_error("roleRef.apiGroup", json::value(group), {kRbacGroup}));
  std::string_view kind = string_at(ref, {"kind"});
  if (cluster && kind != "ClusterRole") {
    errs.push_back(not_supported_error("roleRef.kind", json::value(kind), {"ClusterRole"}));
  } else if (!cluster && kind != "Role" && kind != "ClusterRole") {
    errs.push_back(not_supported_error("roleRef.kind", json::value(kind), {"Role", "ClusterRole"}));
  }
  std::string_view name = string_at(ref, {"name"});
  if (name.empty()) {
    errs.push_back(required_error("roleRef.name"));
  } else {
    for (const auto& p : path_segment_problems(name)) errs.push_back(invalid_error("roleRef.name", json::value(name), p));
  }
}

/// ValidateRoleBindingSubject.
void validate_subject(const json::value& s, const std::string& path, bool cluster, FieldErrors& errs) {
  std::string_view name = json::get_string(s, "name");
  if (name.empty()) errs.push_back(required_error(path + ".name"));
  std::string_view kind = json::get_string(s, "kind");
  std::string_view group = json::get_string(s, "apiGroup");
  if (kind == "ServiceAccount") {
    if (!name.empty()) {
      for (const auto& p : dns1123_subdomain_problems(name)) errs.push_back(invalid_error(path + ".name", json::value(name), p));
    }
    if (!group.empty()) errs.push_back(not_supported_error(path + ".apiGroup", json::value(group), {""}));
    // In a RoleBinding a ServiceAccount without a namespace is the binding's own.
    if (cluster && json::get_string(s, "namespace").empty()) errs.push_back(required_error(path + ".namespace"));
  } else if (kind == "User" || kind == "Group") {
    if (group != kRbacGroup) errs.push_back(not_supported_error(path + ".apiGroup", json::value(group), {kRbacGroup}));
  } else {
    errs.push_back(not_supported_error(path + ".kind", json::value(kind), {"ServiceAccount", "User", "Group"}));
  }
}

void validate_subjects(const json::object& obj, bool cluster, FieldErrors& errs) {
  const json::value* subjects = obj.if_contains("subjects");
  if (subjects == nullptr || !subjects->is_array()) return;
  const json::array& list = subjects->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_object()) validate_subject(list[i], fmt::format("subjects[{}]", i), cluster, errs);
  }
}

/// "kind/namespace/name"-style cells of the wide table, one column per subject kind.
std::string subjects_of_kind(const json::object& obj, std::string_view kind) {
  std::string out;
  const json::value* subjects = obj.if_contains("subjects");
  if (subjects == nullptr || !subjects->is_array()) return out;
  for (const auto& s : subjects->as_array()) {
    if (json::get_string(s, "kind") != kind) continue;
    if (!out.empty()) out += ", ";
    std::string_view ns = json::get_string(s, "namespace");
    if (kind == "ServiceAccount") out += fmt::format("{}/", ns);
    out += json::get_string(s, "name");
  }
  return out;
}

class RoleBindingStrategy final : public BuiltinStrategy {
 public:
  explicit RoleBindingStrategy(bool cluster)
      : BuiltinStrategy(std::string(kRbacGroup), cluster ? "ClusterRoleBinding" : "RoleBinding",
                        ListTable({atomic_object("roleRef")})),
        cluster_(cluster) {}

  Problems name_problems(std::string_view name) const override { return path_segment_problems(name); }

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kBindingFields); !st) return unexpected(st.error());
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    apply_defaults(decoded->as_object());
    return decoded;
  }

  FieldErrors validate(const json::object& obj, const WriteContext&) const override {
    FieldErrors errs;
    validate_role_ref(obj, cluster_, errs);
    validate_subjects(obj, cluster_, errs);
    return errs;
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    FieldErrors errs = validate(obj, ctx);
    // A binding grants what its role grants: pointing it elsewhere is a new binding.
    const json::value* ref = obj.if_contains("roleRef");
    const json::value* old_ref = old.if_contains("roleRef");
    bool same = ref == nullptr ? old_ref == nullptr : (old_ref != nullptr && *ref == *old_ref);
    if (!same) errs.push_back(invalid_error("roleRef", ref != nullptr ? *ref : json::value(nullptr), "cannot change roleRef"));
    return errs;
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Role", "string", "", "", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""},
            {"Users", "string", "", "", 1, ""},
            {"Groups", "string", "", "", 1, ""},
            {"ServiceAccounts", "string", "", "", 1, ""}};
  }

  json::array cells(const json::object& obj, const ResourceType&) const override {
    std::string role = fmt::format("{}/{}", string_at(obj, {"roleRef", "kind"}), string_at(obj, {"roleRef", "name"}));
    return json::array{json::value(role), json::value(age_of(obj)), json::value(subjects_of_kind(obj, "User")),
                       json::value(subjects_of_kind(obj, "Group")), json::value(subjects_of_kind(obj, "ServiceAccount"))};
  }

 private:
  bool cluster_;
};

}  // namespace

StrategyPtr make_role_binding_strategy() { return std::make_shared<RoleBindingStrategy>(false); }
StrategyPtr make_cluster_role_binding_strategy() { return std::make_shared<RoleBindingStrategy>(true); }

}  // namespace kueuepp::kube::server
