#include "cmd/takeover/webhook_handover.hpp"

#include "kube/webhook/webhook_configurations.hpp"

namespace kueuepp::cmd::takeover {

namespace {

using kube::client::ResourceDescriptor;
namespace hooks = kube::webhook::resources;

struct KueueConfiguration {
  const ResourceDescriptor* resource;
  std::string name;
};

std::vector<KueueConfiguration> kueue_configurations(const TakeoverContext& ctx) {
  return {{&hooks::kMutatingWebhookConfiguration, ctx.options.kueue_mutating_webhook},
          {&hooks::kValidatingWebhookConfiguration, ctx.options.kueue_validating_webhook}};
}

/// What can be created again: the object without what the server assigned.
json::value creatable(json::value object) {
  if (json::value* meta = json::find(object, "metadata"); meta && meta->is_object()) {
    for (std::string_view key : {"resourceVersion", "uid", "creationTimestamp", "managedFields", "generation"}) {
      meta->get_object().erase(key);
    }
  }
  return object;
}

Status ensure_namespace(TakeoverContext& ctx) {
  kube::client::Object ns;
  ns.set_type("v1", "Namespace");
  ns.set_name(ctx.options.kueue_namespace);
  auto created = ctx.api.create(kube::client::resources::kNamespace, std::move(ns));
  if (!created && !created.error().is_already_exists()) {
    return unexpected(api_failure("creating namespace " + ctx.options.kueue_namespace, created.error()));
  }
  return {};
}

/// Adds (or replaces) `key` in the ConfigMap of saved configurations.
Status save(TakeoverContext& ctx, const std::string& key, const json::value& configuration) {
  const std::string text = json::dump(creatable(configuration));
  auto written = ctx.api.read_modify_write(
      kube::client::resources::kConfigMap, ctx.options.kueue_namespace, kSavedWebhooksConfigMap,
      [&](kube::client::Object& cm) -> Expected<bool> {
        json::value& data = cm.json().as_object()["data"];
        if (!data.is_object()) data = json::object{};
        if (const json::value* old = json::find(data, key); old && old->is_string() && old->get_string() == text) {
          return false;
        }
        data.as_object()[key] = text;
        return true;
      });
  if (written) return {};
  if (!written.error().is_not_found()) {
    return unexpected(api_failure("saving " + key + " in ConfigMap " + std::string(kSavedWebhooksConfigMap), written.error()));
  }
  if (auto s = ensure_namespace(ctx); !s) return s;
  kube::client::Object cm;
  cm.set_type("v1", "ConfigMap");
  cm.set_name(kSavedWebhooksConfigMap);
  cm.set_namespace(ctx.options.kueue_namespace);
  json::object data;
  data[key] = text;
  cm.json().as_object()["data"] = std::move(data);
  auto created = ctx.api.create(kube::client::resources::kConfigMap, std::move(cm));
  if (!created && created.error().is_already_exists()) return save(ctx, key, configuration);
  if (!created) {
    return unexpected(api_failure("creating ConfigMap " + std::string(kSavedWebhooksConfigMap), created.error()));
  }
  return {};
}

}  // namespace

std::string describe_kueue_webhooks(TakeoverContext& ctx) {
  std::string out;
  for (const auto& c : kueue_configurations(ctx)) {
    auto live = ctx.api.get(*c.resource, "", c.name);
    if (!live) continue;
    const json::value* hooks_list = json::find(live->json(), "webhooks");
    std::size_t n = hooks_list && hooks_list->is_array() ? hooks_list->get_array().size() : 0;
    out += (out.empty() ? "" : ", ") + c.name + " (" + std::to_string(n) + " webhooks)";
  }
  return out.empty() ? "none left" : out + ": saved in ConfigMap " + ctx.options.kueue_namespace + "/" +
                                         std::string(kSavedWebhooksConfigMap) + ", then deleted";
}

Status hand_webhooks_to_kueuepp(TakeoverContext& ctx) {
  for (const auto& c : kueue_configurations(ctx)) {
    auto live = ctx.api.get(*c.resource, "", c.name);
    if (!live && live.error().is_not_found()) continue;
    if (!live) return unexpected(api_failure("reading " + c.name, live.error()));
    std::string key = c.name + ".json";
    if (auto s = save(ctx, key, live->json()); !s) return s;
    kube::client::DeleteOptions options;
    options.precondition_uid = std::string(live->uid());
    auto removed = ctx.api.remove(*c.resource, "", c.name, options);
    if (!removed && !removed.error().is_not_found()) return unexpected(api_failure("deleting " + c.name, removed.error()));
    std::fprintf(ctx.out, "webhooks: %s saved and deleted\n", c.name.c_str());
  }
  return {};
}

Status hand_webhooks_back_to_kueue(TakeoverContext& ctx) {
  auto saved = ctx.api.get(kube::client::resources::kConfigMap, ctx.options.kueue_namespace, kSavedWebhooksConfigMap);
  if (!saved && !saved.error().is_not_found()) {
    return unexpected(api_failure("reading ConfigMap " + std::string(kSavedWebhooksConfigMap), saved.error()));
  }
  for (const auto& c : kueue_configurations(ctx)) {
    const json::value* text = saved ? json::find_path(saved->json(), {"data", c.name + ".json"}) : nullptr;
    if (text == nullptr || !text->is_string()) {
      std::fprintf(ctx.out, "rollback: no saved copy of %s: install Kueue's manifests to restore it\n", c.name.c_str());
      continue;
    }
    auto doc = json::parse(text->get_string());
    if (!doc || !doc->is_object()) return fail("the saved copy of " + c.name + " is not a JSON object");
    auto created = ctx.api.create(*c.resource, kube::client::Object(std::move(*doc)));
    if (!created && !created.error().is_already_exists()) {
      return unexpected(api_failure("creating " + c.name, created.error()));
    }
    std::fprintf(ctx.out, "rollback: %s in place\n", c.name.c_str());
  }
  for (auto [resource, name] : {std::pair{&hooks::kMutatingWebhookConfiguration, kube::webhook::kMutatingConfigurationName},
                                std::pair{&hooks::kValidatingWebhookConfiguration, kube::webhook::kValidatingConfigurationName}}) {
    auto removed = ctx.api.remove(*resource, "", name);
    if (!removed && !removed.error().is_not_found()) {
      return unexpected(api_failure("deleting " + std::string(name), removed.error()));
    }
  }
  std::fprintf(ctx.out, "rollback: kueuepp's webhook configurations deleted\n");
  return {};
}

}  // namespace kueuepp::cmd::takeover
