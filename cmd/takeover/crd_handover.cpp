#include "cmd/takeover/crd_handover.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cmd/takeover/storage_migration.hpp"
#include "kube/json/yaml.hpp"
#include "kube/takeover/crd_replacement.hpp"
#include "kube/webhook/crd_conversion_registration.hpp"
#include "kube/webhook/webhook_configurations.hpp"

namespace kueuepp::cmd::takeover {

namespace {

using kube::client::Object;
using kube::takeover::KueueKind;
using kube::webhook::resources::kCustomResourceDefinition;

/// Writes `make(live)` over the live CRD, reading it again after a conflict; `make`
/// answers nullopt when nothing is to change.
Status update_crd(TakeoverContext& ctx, const std::string& name,
                  const std::function<Expected<std::optional<json::value>>(const json::value&)>& make,
                  bool status = false) {
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto live = ctx.api.get(kCustomResourceDefinition, "", name);
    if (!live) return unexpected(api_failure("reading CRD " + name, live.error()));
    auto next = make(live->json());
    if (!next) return unexpected(Error{"CRD " + name + ": " + next.error().message});
    if (!*next) return {};
    auto written = status ? ctx.api.update_status(kCustomResourceDefinition, Object(std::move(**next)))
                          : ctx.api.update(kCustomResourceDefinition, Object(std::move(**next)));
    if (written) return {};
    if (!written.error().is_conflict()) return unexpected(api_failure("updating CRD " + name, written.error()));
  }
  return fail("CRD " + name + " kept changing under the takeover (10 conflicts): run kueuepp takeover again");
}

/// Waits until `kind` is served at `version` (a new CRD version is served a moment
/// after the update).
Status wait_served(TakeoverContext& ctx, const KueueKind& kind, std::string_view version) {
  const auto deadline = std::chrono::steady_clock::now() + ctx.options.timeout;
  kube::client::ListOptions one;
  one.limit = 1;
  for (;;) {
    auto listed = ctx.api.list(kueue_resource(kind, version), "", one);
    if (listed) return {};
    if (std::chrono::steady_clock::now() > deadline) {
      return unexpected(api_failure(kind.crd_name() + " is not served as " + std::string(version), listed.error()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

const json::value* conversion_client_config_of(const json::value& crd) {
  return json::find_path(crd, {"spec", "conversion", "webhook", "clientConfig"});
}

Expected<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return fail("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Expected<kube::takeover::InstalledCrds> read_kueue_crds(TakeoverContext& ctx) {
  kube::takeover::InstalledCrds out;
  for (const KueueKind& kind : kube::takeover::kueue_kinds()) {
    auto crd = ctx.api.get(kCustomResourceDefinition, "", kind.crd_name());
    if (!crd && crd.error().is_not_found()) {
      out[kind.crd_name()] = std::nullopt;
    } else if (!crd) {
      return unexpected(api_failure("reading CRD " + kind.crd_name(), crd.error()));
    } else {
      out[kind.crd_name()] = std::move(*crd).release();
    }
  }
  return out;
}

Expected<std::map<std::string, json::value>> read_crd_manifests(const std::string& dir) {
  std::map<std::string, json::value> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return fail("cannot read the CRD directory " + dir + ": " + ec.message());
  for (const auto& entry : it) {
    const auto ext = entry.path().extension();
    if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
    auto text = read_file(entry.path());
    if (!text) return unexpected(text.error());
    auto docs = json::parse_yaml_documents(*text);
    if (!docs) return fail(entry.path().string() + ": " + docs.error().message);
    for (auto& doc : *docs) {
      if (json::get_string(doc, "kind") != "CustomResourceDefinition") continue;
      std::string name(kube::takeover::crd_name(doc));
      if (!name.empty()) out[name] = std::move(doc);
    }
  }
  return out;
}

Expected<json::value> kueuepp_conversion_client_config(TakeoverContext& ctx) {
  auto mutating = ctx.api.get(kube::webhook::resources::kMutatingWebhookConfiguration, "",
                              kube::webhook::kMutatingConfigurationName);
  if (!mutating && mutating.error().is_not_found()) {
    return fail(std::string(kube::webhook::kMutatingConfigurationName) +
                " is not installed, so kueuepp's webhook server (which converts v1beta1 and holds Jobs) is not "
                "running: install kueuepp without its CRDs (docs/user-guide/takeover.md), wait until it is ready, "
                "then run kueuepp takeover again");
  }
  if (!mutating) return unexpected(api_failure("reading kueuepp's webhook configuration", mutating.error()));
  return kube::takeover::conversion_client_config(mutating->json());
}

Status replace_crds(TakeoverContext& ctx) {
  auto client_config = kueuepp_conversion_client_config(ctx);
  if (!client_config) return unexpected(client_config.error());
  auto ours = read_crd_manifests(ctx.options.crds_dir);
  if (!ours) return unexpected(ours.error());
  for (const KueueKind& kind : kube::takeover::kueue_kinds()) {
    if (!kind.served_by_kueuepp()) continue;
    auto manifest = ours->find(kind.crd_name());
    if (manifest == ours->end()) {
      return fail("no manifest of CRD " + kind.crd_name() + " in " + ctx.options.crds_dir +
                  ": pass kueuepp's CRDs with --crds (deploy/crds)");
    }
    bool changed = false;
    auto s = update_crd(ctx, kind.crd_name(), [&](const json::value& live) -> Expected<std::optional<json::value>> {
      const json::value* current = conversion_client_config_of(live);
      if (kube::takeover::is_kueuepp_crd(live) && current != nullptr && json::equal(*current, *client_config)) {
        return std::optional<json::value>{};
      }
      auto next = kube::takeover::replacement_crd(live, manifest->second, *client_config);
      if (!next) return unexpected(next.error());
      changed = true;
      return std::optional<json::value>(std::move(*next));
    });
    if (!s) return s;
    if (auto served = wait_served(ctx, kind, "v1beta2"); !served) return served;
    std::fprintf(ctx.out, "crds: %s %s\n", kind.crd_name().c_str(),
                 changed ? "is kueuepp's (v1beta1 and v1beta2 served, v1beta2 stored)" : "was kueuepp's already");
  }
  return {};
}

Status trim_stored_versions(TakeoverContext& ctx) {
  for (const KueueKind& kind : kube::takeover::kueue_kinds()) {
    if (!kind.served_by_kueuepp()) continue;
    auto s = update_crd(
        ctx, kind.crd_name(),
        [&](const json::value& live) -> Expected<std::optional<json::value>> {
          auto versions = kube::takeover::crd_versions(live);
          if (versions.stored_versions == std::vector<std::string>{"v1beta2"}) return std::optional<json::value>{};
          if (!kube::takeover::is_kueuepp_crd(live)) {
            return fail("does not store v1beta2 yet: run kueuepp takeover again");
          }
          json::value next = live;
          next.as_object()["status"].as_object()["storedVersions"] = json::array{"v1beta2"};
          return std::optional<json::value>(std::move(next));
        },
        true);
    if (!s) return s;
    std::fprintf(ctx.out, "trim-stored-versions: %s stores v1beta2 only\n", kind.crd_name().c_str());
  }
  return {};
}

Status restore_kueue_crds(TakeoverContext& ctx) {
  auto theirs = read_crd_manifests(ctx.options.kueue_crds_dir);
  if (!theirs) return unexpected(theirs.error());
  for (const KueueKind& kind : kube::takeover::kueue_kinds()) {
    if (!kind.served_by_kueuepp()) continue;
    auto manifest = theirs->find(kind.crd_name());
    if (manifest == theirs->end()) {
      return fail("no manifest of CRD " + kind.crd_name() + " in " + ctx.options.kueue_crds_dir +
                  ": pass the CRDs of the Kueue release to go back to with --kueue-crds");
    }
    const std::string target = kube::takeover::crd_versions(manifest->second).storage;
    auto live = ctx.api.get(kCustomResourceDefinition, "", kind.crd_name());
    if (!live) return unexpected(api_failure("reading CRD " + kind.crd_name(), live.error()));
    auto versions = kube::takeover::crd_versions(live->json());
    if (versions.storage != target || versions.stored_versions != std::vector<std::string>{target}) {
      // Kueue's CRD must list every stored version: move the objects to its storage
      // version first, through kueuepp's conversion while kueuepp's CRD still serves.
      if (versions.storage != target) {
        auto s = update_crd(ctx, kind.crd_name(), [&](const json::value& l) -> Expected<std::optional<json::value>> {
          auto moved = kube::takeover::with_storage_version(l, target);
          if (!moved) return unexpected(moved.error());
          return std::optional<json::value>(std::move(*moved));
        });
        if (!s) return s;
        if (auto served = wait_served(ctx, kind, target); !served) return served;
      }
      auto written = rewrite_every_object(ctx, kind, target);
      if (!written) return unexpected(written.error());
      auto s = update_crd(
          ctx, kind.crd_name(),
          [&](const json::value& l) -> Expected<std::optional<json::value>> {
            json::value next = l;
            next.as_object()["status"].as_object()["storedVersions"] = json::array{json::value(target)};
            return std::optional<json::value>(std::move(next));
          },
          true);
      if (!s) return s;
      std::fprintf(ctx.out, "rollback: %s: %zu objects rewritten as %s\n", kind.crd_name().c_str(), *written,
                   target.c_str());
    }
    auto s = update_crd(ctx, kind.crd_name(), [&](const json::value& l) -> Expected<std::optional<json::value>> {
      auto restored = kube::takeover::restored_crd(l, manifest->second);
      if (!restored) return unexpected(restored.error());
      if (json::equal(*json::find(*restored, "spec"), *json::find(l, "spec"))) return std::optional<json::value>{};
      return std::optional<json::value>(std::move(*restored));
    });
    if (!s) return s;
    std::fprintf(ctx.out, "rollback: %s is Kueue's again\n", kind.crd_name().c_str());
  }
  return {};
}

}  // namespace kueuepp::cmd::takeover
