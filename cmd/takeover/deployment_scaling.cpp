#include "cmd/takeover/deployment_scaling.hpp"

#include <spdlog/spdlog.h>

#include <thread>

namespace kueuepp::cmd::takeover {

namespace {

constexpr std::string_view kReplicasAnnotation = "kueuepp.io/takeover-replicas";

std::string deployment_name(const TakeoverContext& ctx) {
  return "Deployment " + ctx.options.kueue_namespace + "/" + ctx.options.kueue_deployment;
}

std::int64_t replicas_of(const json::value& deployment) {
  const json::value* r = json::find_path(deployment, {"spec", "replicas"});
  return r != nullptr && r->is_int64() ? r->get_int64() : 1;  // the API's default
}

/// "a=b,c=d" from spec.selector.matchLabels.
std::string label_selector(const json::value& deployment) {
  std::string out;
  const json::value* labels = json::find_path(deployment, {"spec", "selector", "matchLabels"});
  if (labels == nullptr || !labels->is_object()) return out;
  for (const auto& [key, value] : labels->get_object()) {
    if (!value.is_string()) continue;
    out += (out.empty() ? "" : ",") + std::string(key) + "=" + std::string(value.get_string());
  }
  return out;
}

/// Pods of the Deployment that have not ended. Without a selector there is nothing to
/// count (the embedded server has Deployments but runs no pods).
Expected<std::size_t> running_pods(TakeoverContext& ctx, const json::value& deployment) {
  std::string selector = label_selector(deployment);
  if (selector.empty()) return std::size_t{0};
  kube::client::ListOptions options;
  options.label_selector = selector;
  auto pods = ctx.api.list_all(kube::client::resources::kPod, ctx.options.kueue_namespace, options);
  if (!pods) return unexpected(api_failure("listing the pods of " + deployment_name(ctx), pods.error()));
  std::size_t n = 0;
  for (const auto& pod : pods->items) {
    const json::value* status_phase = json::find_path(pod.json(), {"status", "phase"});
    std::string_view phase = status_phase && status_phase->is_string() ? std::string_view(status_phase->get_string()) : "";
    if (phase != "Succeeded" && phase != "Failed") ++n;
  }
  return n;
}

/// Replicas a Deployment controller still reports, when one reports for this generation.
std::int64_t reported_replicas(const json::value& deployment) {
  const json::value* observed = json::find_path(deployment, {"status", "observedGeneration"});
  const json::value* generation = json::find_path(deployment, {"metadata", "generation"});
  if (observed == nullptr || generation == nullptr || !observed->is_int64() || !generation->is_int64() ||
      observed->get_int64() < generation->get_int64()) {
    return 0;
  }
  const json::value* r = json::find_path(deployment, {"status", "replicas"});
  return r != nullptr && r->is_int64() ? r->get_int64() : 0;
}

Status set_replicas(TakeoverContext& ctx, std::int64_t replicas, bool save_old) {
  auto written = ctx.api.read_modify_write(
      kDeployment, ctx.options.kueue_namespace, ctx.options.kueue_deployment,
      [&](kube::client::Object& d) -> Expected<bool> {
        json::value& doc = d.json();
        std::int64_t old = replicas_of(doc);
        json::object& meta = doc.as_object()["metadata"].as_object();
        json::value& annotations = meta["annotations"];
        if (!annotations.is_object()) annotations = json::object{};
        bool changed = false;
        if (save_old && old != 0 && !annotations.as_object().contains(kReplicasAnnotation)) {
          annotations.as_object()[kReplicasAnnotation] = std::to_string(old);
          changed = true;
        }
        if (!save_old && annotations.as_object().erase(kReplicasAnnotation) > 0) changed = true;
        if (old != replicas) {
          doc.as_object()["spec"].as_object()["replicas"] = replicas;
          changed = true;
        }
        return changed;
      });
  if (!written && written.error().is_not_found()) return {};
  if (!written) return unexpected(api_failure("scaling " + deployment_name(ctx), written.error()));
  return {};
}

}  // namespace

std::string describe_kueue_controller(TakeoverContext& ctx) {
  auto d = ctx.api.get(kDeployment, ctx.options.kueue_namespace, ctx.options.kueue_deployment);
  if (!d && d.error().is_not_found()) return deployment_name(ctx) + " not found: nothing to scale";
  if (!d) return deployment_name(ctx) + ": " + d.error().describe();
  return deployment_name(ctx) + ": " + std::to_string(replicas_of(d->json())) + " replicas, to be scaled to 0";
}

Status scale_kueue_down(TakeoverContext& ctx) {
  if (auto s = set_replicas(ctx, 0, true); !s) return s;
  const auto deadline = std::chrono::steady_clock::now() + ctx.options.timeout;
  for (;;) {
    auto d = ctx.api.get(kDeployment, ctx.options.kueue_namespace, ctx.options.kueue_deployment);
    if (!d && d.error().is_not_found()) {
      std::fprintf(ctx.out, "scale-down: %s not found: Kueue's controller is gone already\n", deployment_name(ctx).c_str());
      return {};
    }
    if (!d) return unexpected(api_failure("reading " + deployment_name(ctx), d.error()));
    auto pods = running_pods(ctx, d->json());
    if (!pods) return unexpected(pods.error());
    std::int64_t reported = reported_replicas(d->json());
    if (*pods == 0 && reported == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      return fail(deployment_name(ctx) + " still has " + std::to_string(std::max<std::int64_t>(*pods, reported)) +
                  " pod(s) after " + std::to_string(ctx.options.timeout.count()) +
                  "s: see why they do not stop (kubectl -n " + ctx.options.kueue_namespace +
                  " get pods), then run kueuepp takeover again");
    }
    spdlog::info("waiting for {} pod(s) of {} to stop", std::max<std::int64_t>(*pods, reported), deployment_name(ctx));
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  std::fprintf(ctx.out, "scale-down: %s has no running pod\n", deployment_name(ctx).c_str());
  return {};
}

Status scale_kueue_up(TakeoverContext& ctx) {
  auto d = ctx.api.get(kDeployment, ctx.options.kueue_namespace, ctx.options.kueue_deployment);
  if (!d && d.error().is_not_found()) {
    std::fprintf(ctx.out, "rollback: %s not found: install Kueue's controller again\n", deployment_name(ctx).c_str());
    return {};
  }
  if (!d) return unexpected(api_failure("reading " + deployment_name(ctx), d.error()));
  std::int64_t replicas = 1;
  const json::value* saved = json::find_path(d->json(), {"metadata", "annotations", kReplicasAnnotation});
  if (saved != nullptr && saved->is_string()) {
    try {
      replicas = std::stoll(std::string(saved->get_string()));
    } catch (const std::exception&) {
      replicas = 1;
    }
  }
  if (auto s = set_replicas(ctx, replicas, false); !s) return s;
  std::fprintf(ctx.out, "rollback: %s scaled to %lld\n", deployment_name(ctx).c_str(), static_cast<long long>(replicas));
  return {};
}

}  // namespace kueuepp::cmd::takeover
