#include "cmd/takeover/takeover_check.hpp"

#include "cmd/takeover/crd_handover.hpp"
#include "cmd/takeover/deployment_scaling.hpp"
#include "cmd/takeover/schema_check.hpp"
#include "cmd/takeover/webhook_handover.hpp"
#include "kube/takeover/crd_replacement.hpp"

namespace kueuepp::cmd::takeover {

namespace {

using kube::takeover::KueueKind;

/// Refusals beyond this many are counted, not listed.
constexpr std::size_t kRefusalsListed = 50;

/// Calls `visit` on every object of `kind` at `version`, a page at a time.
Status for_each_object(TakeoverContext& ctx, const KueueKind& kind, std::string_view version,
                       const std::function<void(const json::value&)>& visit) {
  kube::client::ListOptions page;
  page.limit = ctx.options.page_size;
  for (;;) {
    auto list = ctx.api.list(kueue_resource(kind, version), "", page);
    if (!list) return unexpected(api_failure("listing " + std::string(kind.plural), list.error()));
    for (const auto& item : list->items) visit(item.json());
    if (list->continue_token.empty()) return {};
    page.continue_token = list->continue_token;
  }
}

}  // namespace

Expected<CheckReport> check_cluster(TakeoverContext& ctx) {
  CheckReport report;
  auto crds = read_kueue_crds(ctx);
  if (!crds) return unexpected(crds.error());
  report.refusals = kube::takeover::check_installed_crds(*crds);
  if (!report.refusals.empty()) return report;
  if (auto config = kueuepp_conversion_client_config(ctx); !config) {
    report.refusals.push_back({"kueuepp's webhook server", config.error().message, "see above"});
  }
  auto manifests = read_crd_manifests(ctx.options.crds_dir);
  if (!manifests) return unexpected(manifests.error());
  auto schemas = SchemaCheck::compile(*manifests);
  if (!schemas) return unexpected(schemas.error());
  std::size_t unlisted = 0;
  auto refuse = [&](std::vector<kube::takeover::Refusal> refusals) {
    for (auto& refusal : refusals) {
      if (report.refusals.size() < kRefusalsListed) {
        report.refusals.push_back(std::move(refusal));
      } else {
        ++unlisted;
      }
    }
  };
  for (const KueueKind& kind : kube::takeover::kueue_kinds()) {
    const auto& crd = (*crds)[kind.crd_name()];
    if (!crd) continue;  // a kind kueuepp does not serve, never installed
    auto versions = kube::takeover::crd_versions(*crd);
    const std::string version = versions.serves("v1beta2") ? "v1beta2" : "v1beta1";
    if (!kind.served_by_kueuepp()) {
      std::size_t count = 0;
      std::vector<std::string> names;
      auto s = for_each_object(ctx, kind, version, [&](const json::value& o) {
        const json::value* name = json::find_path(o, {"metadata", "name"});
        if (names.size() < 5 && name != nullptr && name->is_string()) names.emplace_back(name->get_string());
        ++count;
      });
      if (!s) return unexpected(s.error());
      if (auto refusal = kube::takeover::check_unserved_kind(kind, count, names)) report.refusals.push_back(*refusal);
      continue;
    }
    if (kube::takeover::is_kueuepp_crd(*crd)) {
      report.crds_done.push_back(kind.crd_name());
    } else {
      report.crds_to_replace.push_back(kind.crd_name());
    }
    if (versions.stored_versions != std::vector<std::string>{"v1beta2"}) report.crds_to_trim.push_back(kind.crd_name());
    std::size_t& count = report.objects[std::string(kind.kind)];
    auto s = for_each_object(ctx, kind, version, [&](const json::value& o) {
      ++count;
      auto refusals = kube::takeover::check_object(kind, o);
      // The schema's words only for an object kueuepp would otherwise accept.
      if (refusals.empty()) refusals = schemas->check(kind, o);
      refuse(std::move(refusals));
    });
    if (!s) return unexpected(s.error());
  }
  if (unlisted > 0) {
    report.refusals.push_back({std::to_string(unlisted) + " more objects", "are refused likewise", "see the above"});
  }
  return report;
}

void print_plan(TakeoverContext& ctx, const CheckReport& report) {
  std::fprintf(ctx.out, "check: passed; objects of Kueue kinds kueuepp serves:");
  for (const auto& [kind, n] : report.objects) std::fprintf(ctx.out, " %s %zu", kind.c_str(), n);
  std::fprintf(ctx.out, "\nscale-down: %s\n", describe_kueue_controller(ctx).c_str());
  std::fprintf(ctx.out, "webhooks: Kueue's configurations: %s\n", describe_kueue_webhooks(ctx).c_str());
  std::fprintf(ctx.out, "crds: %zu to update in place to kueuepp's (v1beta1+v1beta2 served, v1beta2 stored, "
                        "converted by kueuepp's webhook), %zu kueuepp's already\n",
               report.crds_to_replace.size(), report.crds_done.size());
  std::size_t objects = 0;
  for (const auto& [kind, n] : report.objects) objects += n;
  std::fprintf(ctx.out, "migrate-storage: %zu CRDs whose objects (of %zu in all) are rewritten as v1beta2\n",
               report.crds_to_trim.size(), objects);
  std::fprintf(ctx.out, "trim-stored-versions: %zu CRDs to record v1beta2 only in status.storedVersions\n",
               report.crds_to_trim.size());
}

}  // namespace kueuepp::cmd::takeover
