#include "kube/apiserver/server/controllers/cluster_role_aggregation.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/internal_writes.hpp"
#include "kube/apiserver/server/strategy/label_selector_rules.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

const json::array* selectors_of(const json::value& role) {
  const json::value* selectors = json::find_path(role, {"aggregationRule", "clusterRoleSelectors"});
  return selectors != nullptr && selectors->is_array() ? &selectors->get_array() : nullptr;
}

std::string_view name_of(const json::value& role) {
  const json::value* meta = json::find(role, "metadata");
  return meta != nullptr ? json::get_string(*meta, "name") : std::string_view{};
}

bool contains_rule(const json::array& rules, const json::value& rule) {
  return std::any_of(rules.begin(), rules.end(), [&](const json::value& r) { return json::equal(r, rule); });
}

}  // namespace

json::array aggregated_rules(const json::value& aggregated, const std::vector<const json::value*>& roles) {
  json::array rules;
  const json::array* selectors = selectors_of(aggregated);
  if (selectors == nullptr) return rules;
  const std::string_view self = name_of(aggregated);
  for (const json::value& selector : *selectors) {
    for (const json::value* role : roles) {
      if (name_of(*role) == self) continue;
      if (!label_selector_matches(selector, json::find_path(*role, {"metadata", "labels"}))) continue;
      const json::value* role_rules = json::find(*role, "rules");
      if (role_rules == nullptr || !role_rules->is_array()) continue;
      for (const json::value& rule : role_rules->get_array()) {
        if (!contains_rule(rules, rule)) rules.push_back(rule);
      }
    }
  }
  return rules;
}

ClusterRoleAggregationController::ClusterRoleAggregationController(ServerContext& ctx)
    : ctx_(ctx), cluster_roles_(ctx.store.bucket("rbac.authorization.k8s.io/clusterroles")) {}

void ClusterRoleAggregationController::observe(const Change& change) {
  if (change.bucket == cluster_roles_) schedule();
}

void ClusterRoleAggregationController::sweep() { schedule(); }

void ClusterRoleAggregationController::schedule() {
  // Changes that arrive together (an apply of many roles) are aggregated once.
  if (scheduled_) return;
  scheduled_ = true;
  ctx_.scheduler.post([this] {
    scheduled_ = false;
    sync();
  });
}

void ClusterRoleAggregationController::sync() {
  std::vector<ObjectPtr> stored;
  ctx_.store.scan(cluster_roles_, "", "", 0, [&](const ObjectPtr& o) {
    stored.push_back(o);
    return true;
  });
  std::sort(stored.begin(), stored.end(), [](const ObjectPtr& a, const ObjectPtr& b) { return a->name < b->name; });
  std::vector<const json::value*> roles;
  roles.reserve(stored.size());
  for (const ObjectPtr& o : stored) roles.push_back(&o->doc);
  const ResourceType* type = ctx_.registry.find("rbac.authorization.k8s.io", "v1", "clusterroles");
  for (const ObjectPtr& o : stored) {
    if (selectors_of(o->doc) == nullptr) continue;
    json::array rules = aggregated_rules(o->doc, roles);
    const json::value* current = json::find(o->doc, "rules");
    const bool same = current != nullptr && current->is_array() ? json::equal(current->get_array(), rules)
                                                                : rules.empty();
    if (same) continue;
    spdlog::debug("ClusterRole {}: aggregated {} rules", o->name, rules.size());
    json::value next = o->document();
    next.as_object()["rules"] = std::move(rules);
    // Writing the role changes the bucket again; that sync finds nothing more to do
    // unless this role is itself aggregated into another (edit into admin).
    write_back(ctx_, *type, *o, std::move(next));
  }
}

}  // namespace kueuepp::kube::server
