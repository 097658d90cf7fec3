#include "kube/apiserver/server/admission/webhook.hpp"

#include "core/base64.hpp"

namespace kueuepp::kube::server {

namespace {

std::vector<std::string> strings(const json::value* v) {
  std::vector<std::string> out;
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& e : v->as_array()) {
    if (e.is_string()) out.emplace_back(e.get_string());
  }
  return out;
}

std::string text(const json::value& v, std::string_view key, std::string_view fallback = {}) {
  return std::string(json::get_string(v, key, fallback));
}

}  // namespace

std::vector<Webhook> read_webhooks(const json::object& configuration, bool mutating) {
  std::vector<Webhook> out;
  const json::value* hooks = configuration.if_contains("webhooks");
  if (hooks == nullptr || !hooks->is_array()) return out;
  std::string config_name;
  if (const json::value* meta = configuration.if_contains("metadata")) config_name = text(*meta, "name");
  for (const auto& h : hooks->as_array()) {
    if (!h.is_object()) continue;
    Webhook w;
    w.configuration = config_name;
    w.name = text(h, "name");
    w.mutating = mutating;
    if (const json::value* rules = json::find(h, "rules"); rules != nullptr && rules->is_array()) {
      for (const auto& r : rules->as_array()) {
        WebhookRule rule;
        rule.operations = strings(json::find(r, "operations"));
        rule.groups = strings(json::find(r, "apiGroups"));
        rule.versions = strings(json::find(r, "apiVersions"));
        rule.resources = strings(json::find(r, "resources"));
        rule.scope = text(r, "scope", "*");
        w.rules.push_back(std::move(rule));
      }
    }
    w.fail_closed = json::get_string(h, "failurePolicy", "Fail") != "Ignore";
    w.exact = json::get_string(h, "matchPolicy", "Equivalent") == "Exact";
    const json::value* ns_sel = json::find(h, "namespaceSelector");
    w.namespace_selector = ns_sel != nullptr && ns_sel->is_object() ? *ns_sel : json::value(json::object{});
    const json::value* obj_sel = json::find(h, "objectSelector");
    w.object_selector = obj_sel != nullptr && obj_sel->is_object() ? *obj_sel : json::value(json::object{});
    w.side_effects = text(h, "sideEffects", "Unknown");
    if (const json::value* t = json::find(h, "timeoutSeconds"); t != nullptr && t->is_int64()) {
      w.timeout_seconds = static_cast<int>(t->get_int64());
    }
    for (const auto& v : strings(json::find(h, "admissionReviewVersions"))) {
      if (v == "v1" || v == "v1beta1") {
        w.review_version = v;
        break;
      }
    }
    if (const json::value* cc = json::find(h, "clientConfig")) w.client = read_client_config(*cc);
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace kueuepp::kube::server
