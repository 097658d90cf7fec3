#include "kube/webhook/webhook_configurations.hpp"

#include "core/base64.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/webhook/webhook_catalog.hpp"

namespace kueuepp::kube::webhook {

namespace resources {
const client::ResourceDescriptor kMutatingWebhookConfiguration{"admissionregistration.k8s.io", "v1",
                                                               "mutatingwebhookconfigurations",
                                                               "MutatingWebhookConfiguration", false};
const client::ResourceDescriptor kValidatingWebhookConfiguration{"admissionregistration.k8s.io", "v1",
                                                                 "validatingwebhookconfigurations",
                                                                 "ValidatingWebhookConfiguration", false};
const client::ResourceDescriptor kSecret{"", "v1", "secrets", "Secret", true};
}  // namespace resources

namespace {

json::array strings(std::span<const std::string_view> values) {
  json::array out;
  for (auto v : values) out.emplace_back(json::string(v));
  return out;
}

json::object webhook_entry(const WebhookSpec& spec, const WebhookTarget& target) {
  json::object w;
  w["name"] = spec.name;
  w["admissionReviewVersions"] = json::array{"v1"};
  json::object client;
  if (target.url_base.empty()) {
    json::object service;
    service["name"] = target.service_name;
    service["namespace"] = target.service_namespace;
    service["path"] = spec.path;
    service["port"] = 443;
    client["service"] = std::move(service);
  } else {
    client["url"] = target.url_base + std::string(spec.path);
  }
  if (!target.ca_bundle_pem.empty()) client["caBundle"] = core::base64_encode(target.ca_bundle_pem);
  w["clientConfig"] = std::move(client);
  w["failurePolicy"] = to_string(spec.failure_policy);
  w["matchPolicy"] = "Equivalent";
  w["sideEffects"] = "None";
  w["timeoutSeconds"] = target.timeout_seconds;
  json::object rule;
  rule["apiGroups"] = json::array{json::string(spec.group)};
  rule["apiVersions"] = json::array{json::string(spec.version)};
  rule["operations"] = strings(spec.operations);
  rule["resources"] = strings(spec.resources);
  rule["scope"] = spec.namespaced ? "Namespaced" : "Cluster";
  w["rules"] = json::array{std::move(rule)};
  if (spec.namespaced) {
    json::object expression;
    expression["key"] = "kubernetes.io/metadata.name";
    expression["operator"] = "NotIn";
    json::array values;
    for (const auto& ns : target.excluded_namespaces) values.emplace_back(json::string(ns));
    expression["values"] = std::move(values);
    json::object selector;
    selector["matchExpressions"] = json::array{std::move(expression)};
    w["namespaceSelector"] = std::move(selector);
  }
  if (spec.object_filter != ObjectFilter::Any) {
    json::object expression;
    expression["key"] = jobs::kQueueNameLabel;
    expression["operator"] = spec.object_filter == ObjectFilter::QueueNameSet ? "Exists" : "DoesNotExist";
    json::object selector;
    selector["matchExpressions"] = json::array{std::move(expression)};
    w["objectSelector"] = std::move(selector);
  }
  return w;
}

json::value configuration(bool mutating, const WebhookTarget& target) {
  json::object doc;
  doc["apiVersion"] = "admissionregistration.k8s.io/v1";
  doc["kind"] = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  json::object meta;
  meta["name"] = mutating ? kMutatingConfigurationName : kValidatingConfigurationName;
  json::object labels;
  labels["app.kubernetes.io/name"] = "kueuepp";
  meta["labels"] = std::move(labels);
  doc["metadata"] = std::move(meta);
  json::array webhooks;
  for (const auto& spec : webhook_catalog()) {
    if (spec.mutating == mutating && spec.registered) webhooks.emplace_back(webhook_entry(spec, target));
  }
  doc["webhooks"] = std::move(webhooks);
  return doc;
}

bool served_name(std::string_view name) {
  for (const auto& spec : webhook_catalog()) {
    if (spec.name == name) return true;
  }
  return false;
}

}  // namespace

json::value mutating_configuration(const WebhookTarget& target) { return configuration(true, target); }
json::value validating_configuration(const WebhookTarget& target) { return configuration(false, target); }

std::optional<json::value> ca_bundle_patch(const json::value& live, const std::string& ca_bundle_pem) {
  const json::value* webhooks = live.is_object() ? live.get_object().if_contains("webhooks") : nullptr;
  if (webhooks == nullptr || !webhooks->is_array()) return std::nullopt;
  const std::string encoded = core::base64_encode(ca_bundle_pem);
  json::array entries;
  for (const auto& w : webhooks->get_array()) {
    std::string_view name = json::get_string(w, "name");
    if (!served_name(name)) continue;
    const json::value* cc = json::find(w, "clientConfig");
    std::string_view current = cc != nullptr ? json::get_string(*cc, "caBundle") : std::string_view();
    if (current == encoded) continue;
    json::object client;
    client["caBundle"] = encoded;
    json::object entry;
    entry["name"] = name;
    entry["clientConfig"] = std::move(client);
    entries.emplace_back(std::move(entry));
  }
  if (entries.empty()) return std::nullopt;
  json::object patch;
  patch["webhooks"] = std::move(entries);
  return json::value(std::move(patch));
}

std::optional<json::value> updated_configuration(const json::value& live, const json::value& desired) {
  if (!live.is_object() || !desired.is_object()) return desired;
  const json::value* have = live.get_object().if_contains("webhooks");
  const json::value& want = desired.get_object().at("webhooks");
  // The API server adds defaults (reinvocationPolicy, objectSelector {}, ...): equal when
  // every field kueuepp writes is as written.
  bool same = have != nullptr && have->is_array() && have->get_array().size() == want.get_array().size();
  for (std::size_t i = 0; same && i < want.get_array().size(); ++i) {
    const json::object& w = want.get_array()[i].get_object();
    const json::value& h = have->get_array()[i];
    if (!h.is_object()) {
      same = false;
      break;
    }
    for (const auto& kv : w) {
      const json::value* field = h.get_object().if_contains(kv.key());
      if (field == nullptr || !json::equal(*field, kv.value())) {
        // clientConfig may gain a defaulted service port; compare what was written.
        if (kv.key() == "clientConfig" && field != nullptr && field->is_object() && kv.value().is_object()) {
          bool cc_same = true;
          for (const auto& c : kv.value().get_object()) {
            const json::value* f = field->get_object().if_contains(c.key());
            cc_same = cc_same && f != nullptr && json::equal(*f, c.value());
          }
          if (cc_same) continue;
        }
        same = false;
        break;
      }
    }
  }
  if (same) return std::nullopt;
  json::value out = live;
  out.as_object()["webhooks"] = want;
  return out;
}

}  // namespace kueuepp::kube::webhook
