#include "kube/apiserver/server/admission/rule_matching.hpp"

#include <algorithm>

#include "kube/apiserver/server/strategy/label_selector_rules.hpp"

namespace kueuepp::kube::server {

namespace {

bool exact_or_wildcard(const std::vector<std::string>& items, std::string_view requested) {
  return std::any_of(items.begin(), items.end(), [&](const std::string& i) { return i == "*" || i == requested; });
}

bool is_namespace_resource(const RequestResource& r) {
  return r.group.empty() && r.version == "v1" && r.resource == "namespaces";
}

bool scope_matches(std::string_view scope, const RequestResource& r) {
  if (scope.empty() || scope == "*") return true;
  if (scope == "Namespaced") return !is_namespace_resource(r) && !r.ns.empty();
  if (scope == "Cluster") return is_namespace_resource(r) || r.ns.empty();
  return false;
}

bool resource_matches(const std::vector<std::string>& resources, const RequestResource& r) {
  for (std::string_view entry : resources) {
    std::size_t slash = entry.find('/');
    std::string_view res = entry.substr(0, slash);
    std::string_view sub = slash == std::string_view::npos ? std::string_view() : entry.substr(slash + 1);
    if ((res == "*" || res == r.resource) && (sub == "*" || sub == r.subresource)) return true;
  }
  return false;
}

bool operation_matches(const std::vector<std::string>& ops, std::string_view op) {
  return std::any_of(ops.begin(), ops.end(), [&](const std::string& o) { return o == "*" || o == op; });
}

}  // namespace

bool rule_matches(const WebhookRule& rule, const RequestResource& request) {
  return scope_matches(rule.scope, request) && operation_matches(rule.operations, request.operation) &&
         exact_or_wildcard(rule.groups, request.group) && exact_or_wildcard(rule.versions, request.version) &&
         resource_matches(rule.resources, request);
}

std::optional<bool> namespace_selector_matches(
    const json::value& selector, const RequestResource& request, const json::value* object_labels,
    const std::function<std::optional<const json::value*>(std::string_view)>& namespace_labels) {
  // A cluster-scoped object other than a Namespace is never exempted by it.
  if (request.ns.empty() && request.resource != "namespaces") return true;
  if (label_selector_empty(selector)) return true;
  // A Namespace being created or updated is not stored yet in its new form: its own
  // labels decide.
  if (request.resource == "namespaces" && request.subresource.empty() &&
      (request.operation == "CREATE" || request.operation == "UPDATE")) {
    return label_selector_matches(selector, object_labels);
  }
  std::optional<const json::value*> labels = namespace_labels(request.ns);
  if (!labels) return std::nullopt;
  return label_selector_matches(selector, *labels);
}

bool object_selector_matches(const json::value& selector, const json::value* new_object,
                             const json::value* old_object) {
  if (label_selector_empty(selector)) return true;
  // An absent object never matches (a DELETE has no new one, a CREATE no old one); an
  // object without labels is matched against an empty set.
  auto matches = [&](const json::value* object) {
    if (object == nullptr || !object->is_object()) return false;
    const json::value* meta = json::find(*object, "metadata");
    const json::value* labels = meta != nullptr && meta->is_object() ? json::find(*meta, "labels") : nullptr;
    return label_selector_matches(selector, labels);
  };
  return matches(new_object) || matches(old_object);
}

ResourceTypePtr matching_resource(const Webhook& hook, const RequestResource& request, const ResourceTypePtr& requested,
                                  const std::vector<ResourceTypePtr>& equivalents) {
  for (const auto& rule : hook.rules) {
    if (rule_matches(rule, request)) return requested;
  }
  if (hook.exact) return nullptr;
  // Earlier rules first, each against every other version of the resource.
  for (const auto& rule : hook.rules) {
    for (const auto& other : equivalents) {
      if (other->group == requested->group && other->version == requested->version &&
          other->plural == requested->plural) {
        continue;
      }
      if (!request.subresource.empty() && request.subresource == "status" && !other->status_subresource) continue;
      RequestResource as_other = request;
      as_other.group = other->group;
      as_other.version = other->version;
      as_other.resource = other->plural;
      if (rule_matches(rule, as_other)) return other;
    }
  }
  return nullptr;
}

}  // namespace kueuepp::kube::server
