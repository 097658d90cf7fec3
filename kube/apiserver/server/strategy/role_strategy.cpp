// rbac.authorization.k8s.io/v1 Role and ClusterRole: kube-apiserver 1.28's validation
// of their rules (verbs always; apiGroups and resources for resource rules;
// nonResourceURLs only in ClusterRoles and never mixed with resources) and of a
// ClusterRole's aggregationRule. Names are path segments (RBAC allows "system:..."),
// and `rules` is always serialized (the Go field has no omitempty). The server does
// not authorize by them: they are stored for the clients that read them.

#include <array>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/label_selector_rules.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::array kRoleFields{
    TypedField{"rules", FieldType::ObjectList},
    TypedField{"rules[].verbs", FieldType::StringList},
    TypedField{"rules[].apiGroups", FieldType::StringList},
    TypedField{"rules[].resources", FieldType::StringList},
    TypedField{"rules[].resourceNames", FieldType::StringList},
    TypedField{"rules[].nonResourceURLs", FieldType::StringList},
    TypedField{"aggregationRule", FieldType::Object},
    TypedField{"aggregationRule.clusterRoleSelectors", FieldType::ObjectList},
};

std::size_t list_size(const json::value& rule, std::string_view key) {
  const json::value* v = json::find(rule, key);
  return v != nullptr && v->is_array() ? v->as_array().size() : 0;
}

/// ValidatePolicyRule.
void validate_rule(const json::value& rule, const std::string& path, bool namespaced, FieldErrors& errs) {
  if (list_size(rule, "verbs") == 0) errs.push_back(required_error(path + ".verbs", "verbs must contain at least one value"));
  if (list_size(rule, "nonResourceURLs") > 0) {
    const json::value& urls = *json::find(rule, "nonResourceURLs");
    if (namespaced) {
      errs.push_back(invalid_error(path + ".nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs"));
    }
    if (list_size(rule, "apiGroups") > 0 || list_size(rule, "resources") > 0 || list_size(rule, "resourceNames") > 0) {
      errs.push_back(invalid_error(path + ".nonResourceURLs", urls,
                                   "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return;
  }
  if (list_size(rule, "apiGroups") == 0) {
    errs.push_back(required_error(path + ".apiGroups", "resource rules must supply at least one api group"));
  }
  if (list_size(rule, "resources") == 0) {
    errs.push_back(required_error(path + ".resources", "resource rules must supply at least one resource"));
  }
}

void validate_rules(const json::object& obj, bool namespaced, FieldErrors& errs) {
  const json::value* rules = obj.if_contains("rules");
  if (rules == nullptr || !rules->is_array()) return;
  const json::array& list = rules->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_object()) validate_rule(list[i], fmt::format("rules[{}]", i), namespaced, errs);
  }
}

/// A ClusterRole whose rules a controller aggregates from the ClusterRoles it selects.
void validate_aggregation(const json::object& obj, FieldErrors& errs) {
  const json::value* rule = obj.if_contains("aggregationRule");
  if (rule == nullptr || rule->is_null()) return;
  const json::value* selectors = json::find(*rule, "clusterRoleSelectors");
  if (selectors == nullptr || !selectors->is_array() || selectors->as_array().empty()) {
    errs.push_back(required_error("aggregationRule.clusterRoleSelectors",
                                  "at least one clusterRoleSelector required if aggregationRule is non-nil"));
    return;
  }
  const json::array& list = selectors->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    for (auto& e : validate_label_selector(&list[i], fmt::format("aggregationRule.clusterRoleSelectors[{}]", i))) {
      errs.push_back(std::move(e));
    }
  }
}

class RoleStrategy final : public BuiltinStrategy {
 public:
  explicit RoleStrategy(bool cluster)
      : BuiltinStrategy("rbac.authorization.k8s.io", cluster ? "ClusterRole" : "Role", ListTable({})),
        cluster_(cluster) {}

  Problems name_problems(std::string_view name) const override { return path_segment_problems(name); }

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kRoleFields); !st) return unexpected(st.error());
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    json::object& o = decoded->as_object();
    if (!o.contains("rules")) o["rules"] = nullptr;
    return decoded;
  }

  FieldErrors validate(const json::object& obj, const WriteContext&) const override {
    FieldErrors errs;
    validate_rules(obj, !cluster_, errs);
    if (cluster_) validate_aggregation(obj, errs);
    return errs;
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Created At", "date", "", "", 0, ""}};
  }
  json::array cells(const json::object& obj, const ResourceType&) const override {
    return json::array{json::value(meta_string(obj, "creationTimestamp"))};
  }

 private:
  bool cluster_;
};

}  // namespace

StrategyPtr make_role_strategy() { return std::make_shared<RoleStrategy>(false); }
StrategyPtr make_cluster_role_strategy() { return std::make_shared<RoleStrategy>(true); }

}  // namespace kueuepp::kube::server
