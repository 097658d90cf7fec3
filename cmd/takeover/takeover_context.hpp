#pragma once

// What every step of `kueuepp takeover` works with: the API client, where Kueue and
// kueuepp live in the cluster, and where the steps say what they do.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/expected.hpp"
#include "kube/client/api_error.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/resource.hpp"
#include "kube/takeover/kueue_kinds.hpp"

namespace kueuepp::cmd::takeover {

struct TakeoverOptions {
  std::string kueue_namespace = "kueue-system";
  std::string kueue_deployment = "kueue-controller-manager";
  std::string kueue_mutating_webhook = "kueue-mutating-webhook-configuration";
  std::string kueue_validating_webhook = "kueue-validating-webhook-configuration";
  /// kueuepp's CRD manifests (deploy/crds).
  std::string crds_dir = "deploy/crds";
  /// Kueue's CRD manifests, for --rollback.
  std::string kueue_crds_dir;
  std::chrono::seconds timeout{300};
  std::int64_t page_size = 500;
  /// Writes of the storage migration in flight at once.
  int parallel_writes = 32;
};

struct TakeoverContext {
  kube::client::BlockingClient& api;
  TakeoverOptions options;
  std::FILE* out = stdout;
};

/// The descriptor of a Kueue kind at `version` ("v1beta1", "v1beta2"); the strings are
/// static (the kinds' table and two literals).
kube::client::ResourceDescriptor kueue_resource(const kube::takeover::KueueKind& kind, std::string_view version);

/// apps/v1 Deployments.
extern const kube::client::ResourceDescriptor kDeployment;

/// `what failed: the server's words` as a Status error.
Error api_failure(std::string_view what, const kube::client::ApiError& error);

}  // namespace kueuepp::cmd::takeover
