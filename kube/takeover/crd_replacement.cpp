#include "kube/takeover/crd_replacement.hpp"

#include "kube/takeover/kueue_kinds.hpp"

namespace kueuepp::kube::takeover {

namespace {

constexpr std::string_view kCaInjection = "cert-manager.io/inject-ca-from";

Expected<json::object> metadata_for_update(const json::value& live) {
  const json::value* meta = json::find(live, "metadata");
  if (meta == nullptr || !meta->is_object() || json::get_string(*meta, "name").empty()) {
    return fail("the live CRD has no metadata.name");
  }
  json::object out = meta->get_object();
  if (json::value* annotations = json::find(out, "annotations"); annotations && annotations->is_object()) {
    annotations->get_object().erase(kCaInjection);
  }
  out.erase("managedFields");
  return out;
}

Expected<json::value> with_spec(const json::value& live, const json::value& source) {
  auto meta = metadata_for_update(live);
  if (!meta) return unexpected(meta.error());
  const json::value* spec = json::find(source, "spec");
  if (spec == nullptr || !spec->is_object()) return fail("the CRD manifest has no spec");
  std::string_view live_name = json::get_string(*json::find(live, "metadata"), "name");
  if (crd_name(source) != live_name) {
    return fail("the CRD manifest is " + std::string(crd_name(source)) + ", not " + std::string(live_name));
  }
  json::object out;
  out["apiVersion"] = "apiextensions.k8s.io/v1";
  out["kind"] = "CustomResourceDefinition";
  out["metadata"] = std::move(*meta);
  out["spec"] = *spec;
  return json::value(std::move(out));
}

const json::value* version_named(const json::value& crd, std::string_view name) {
  const json::value* versions = json::find_path(crd, {"spec", "versions"});
  if (versions == nullptr || !versions->is_array()) return nullptr;
  for (const json::value& v : versions->get_array()) {
    if (json::get_string(v, "name") == name) return &v;
  }
  return nullptr;
}

}  // namespace

std::string_view crd_name(const json::value& crd) {
  const json::value* meta = json::find(crd, "metadata");
  return meta ? json::get_string(*meta, "name") : std::string_view{};
}

Expected<json::value> conversion_client_config(const json::value& mutating_configuration) {
  const json::value* webhooks = json::find(mutating_configuration, "webhooks");
  if (webhooks == nullptr || !webhooks->is_array() || webhooks->get_array().empty()) {
    return fail("kueuepp's MutatingWebhookConfiguration has no webhooks: install kueuepp (kubectl apply -k deploy/ "
                "without its CRDs, see docs/user-guide/takeover.md) and run kueuepp takeover again");
  }
  const json::value* config = json::find(webhooks->get_array().front(), "clientConfig");
  if (config == nullptr || !config->is_object() || json::get_string(*config, "caBundle").empty()) {
    return fail("kueuepp's MutatingWebhookConfiguration has no caBundle yet, so kueuepp's webhook server has not "
                "started: wait until a kueuepp replica is ready, then run kueuepp takeover again");
  }
  json::object out;
  out["caBundle"] = *json::find(*config, "caBundle");
  if (const json::value* service = json::find(*config, "service"); service && service->is_object()) {
    json::object s = service->get_object();
    s["path"] = "/convert";
    out["service"] = std::move(s);
  } else {
    std::string_view url = json::get_string(*config, "url");
    auto scheme = url.find("://");
    auto path = scheme == std::string_view::npos ? std::string_view::npos : url.find('/', scheme + 3);
    if (url.empty() || scheme == std::string_view::npos) {
      return fail("kueuepp's MutatingWebhookConfiguration names neither a Service nor a URL");
    }
    out["url"] = std::string(url.substr(0, path)) + "/convert";
  }
  return json::value(std::move(out));
}

Expected<json::value> replacement_crd(const json::value& live, const json::value& ours,
                                      const json::value& client_config) {
  auto out = with_spec(live, ours);
  if (!out) return out;
  json::object& spec = json::find(*out, "spec")->get_object();
  json::object webhook;
  webhook["conversionReviewVersions"] = json::array{"v1"};
  webhook["clientConfig"] = client_config;
  json::object conversion;
  conversion["strategy"] = "Webhook";
  conversion["webhook"] = std::move(webhook);
  spec["conversion"] = std::move(conversion);
  if (json::value* versions = json::find(spec, "versions"); versions && versions->is_array()) {
    for (json::value& v : versions->get_array()) {
      if (!v.is_object() || json::find(v, "selectableFields") != nullptr) continue;
      const json::value* theirs = version_named(live, json::get_string(v, "name"));
      if (const json::value* fields = theirs ? json::find(*theirs, "selectableFields") : nullptr) {
        v.get_object()["selectableFields"] = *fields;
      }
    }
  }
  return out;
}

Expected<json::value> restored_crd(const json::value& live, const json::value& theirs) { return with_spec(live, theirs); }

Expected<json::value> with_storage_version(const json::value& crd, std::string_view version) {
  json::value out = crd;
  json::value* spec = json::find(out, "spec");
  json::value* versions = spec ? json::find(*spec, "versions") : nullptr;
  if (versions == nullptr || !versions->is_array()) return fail("the CRD has no spec.versions");
  bool found = false;
  for (json::value& v : versions->get_array()) {
    if (!v.is_object()) continue;
    const bool is_it = json::get_string(v, "name") == version;
    if (is_it && json::find(v, "served") && json::find(v, "served")->is_bool() && !json::find(v, "served")->get_bool()) {
      return fail("CRD " + std::string(crd_name(crd)) + " does not serve " + std::string(version));
    }
    v.get_object()["storage"] = is_it;
    found = found || is_it;
  }
  if (!found) return fail("CRD " + std::string(crd_name(crd)) + " has no version " + std::string(version));
  return out;
}

bool is_kueuepp_crd(const json::value& crd) {
  CrdVersions versions = crd_versions(crd);
  if (versions.storage != "v1beta2" || !versions.serves("v1beta1") || versions.conversion_strategy != "Webhook") {
    return false;
  }
  const json::value* config = json::find_path(crd, {"spec", "conversion", "webhook", "clientConfig"});
  if (config == nullptr) return false;
  if (const json::value* service = json::find(*config, "service")) {
    return json::get_string(*service, "path") == "/convert" &&
           json::get_string(*service, "name") != "kueue-webhook-service";
  }
  std::string_view url = json::get_string(*config, "url");
  return url.size() >= 8 && url.substr(url.size() - 8) == "/convert";
}

}  // namespace kueuepp::kube::takeover
