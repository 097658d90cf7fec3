#pragma once

// kueuepp's admission webhooks, with Kueue's names, paths, rules and side effects
// (config/components/webhook/manifests.yaml of Kueue, for the kinds kueuepp serves):
// the server routes by these paths, the webhook configurations kueuepp writes are built
// from this table, and tests/deploy checks deploy/ against it.

#include <cstdint>
#include <span>
#include <string_view>

namespace kueuepp::kube::webhook {

enum class WebhookKind : std::uint8_t {
  MutateJob,
  ValidateJob,
  MutateJobSet,
  ValidateJobSet,
  MutateKubeflowJob,    ///< PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob, MPIJob
  ValidateKubeflowJob,
  MutateRayJob,
  ValidateRayJob,
  MutateRayCluster,
  ValidateRayCluster,
  MutateRayService,
  ValidateRayService,
  MutateTrainJob,
  ValidateTrainJob,
  MutateAppWrapper,
  ValidateAppWrapper,
  MutateClusterQueue,
  ValidateClusterQueue,
  ValidateCohort,
  MutateResourceFlavor,
  ValidateResourceFlavor,
  MutateWorkload,
  ValidateWorkload,
};

enum class FailurePolicy : std::uint8_t { Fail, Ignore };

/// Which objects a webhook's configuration sends it (its objectSelector on the
/// kueue.x-k8s.io/queue-name label).
enum class ObjectFilter : std::uint8_t { Any, QueueNameSet, QueueNameUnset };

std::string_view to_string(FailurePolicy policy);

struct WebhookSpec {
  WebhookKind kind;
  std::string_view name;  ///< "mjob.kb.io"
  std::string_view path;  ///< "/mutate-batch-v1-job"
  bool mutating;
  std::string_view group;
  std::string_view version;
  std::span<const std::string_view> resources;   ///< "jobs"; "workloads", "workloads/status"
  std::span<const std::string_view> operations;  ///< "CREATE", "UPDATE"
  /// kueuepp's choice (README, section on webhooks): a Job that asked for a queue is
  /// refused while no replica can hold it (Fail), a Job that did not is never blocked by
  /// a missing webhook (Ignore: Kueue #5244), the controller still catches it; the Kueue
  /// kinds' webhooks Fail, as Kueue's.
  FailurePolicy failure_policy;
  ObjectFilter object_filter;
  /// A namespaced kind: the configuration gets a namespaceSelector leaving kube-system
  /// and kueuepp's own namespace out.
  bool namespaced;
  /// In the configurations kueuepp writes and ships. The Workload webhooks are served
  /// (a configuration naming them works) but not registered: they change and check
  /// nothing, and registering them would put a webhook call on every Workload status
  /// write of the controller.
  bool registered;
};

/// Every webhook kueuepp serves, mutating first.
std::span<const WebhookSpec> webhook_catalog();

/// The webhook served at `path`, or null (two registrations may share a path: the
/// first, whose kind both have).
const WebhookSpec* find_webhook(std::string_view path);

const WebhookSpec& webhook_spec(WebhookKind kind);

}  // namespace kueuepp::kube::webhook
