#pragma once

// The API resource behind each kind the controller watches or writes, and the kinds of
// job it can manage: Kueue's framework name, the integration (kube/jobs) and the tag its
// watch events carry.

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "kube/client/resource.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::kube::client {
class Object;
}
namespace kueuepp::kube::jobs {
class JobIntegration;
}

namespace kueuepp::actors {

const kube::client::ResourceDescriptor& resource_of(messages::ObjectKind kind);

struct JobKindEntry {
  std::string_view framework;  ///< Kueue's name in integrations.frameworks
  messages::ObjectKind tag;
  const kube::jobs::JobIntegration& (*integration)();
  /// Served by a CRD that may be absent: its watch waits for it without holding readiness.
  bool custom_resource;
};

/// Every kind of job kueuepp manages: adding one is an entry here and its adapter.
std::span<const JobKindEntry> job_kinds();

/// The entry for Kueue's framework name, or nullopt when kueuepp has none.
std::optional<JobKindEntry> find_job_kind(std::string_view framework);

/// The kinds a kind of job's adapter reads besides its jobs (a TrainJob's training
/// runtimes): watched for its job actor, which decides nothing before they are listed.
std::span<const messages::ObjectKind> related_kinds(messages::ObjectKind job_kind);

/// An object of a related kind by namespace (empty: cluster-scoped) and name; null when
/// absent. The caller keeps it alive for the call it answers.
using RelatedObjects =
    std::function<const kube::client::Object*(messages::ObjectKind, std::string_view ns, std::string_view name)>;

/// The adapter of `job_kind` reading its related objects through `related`; null for a
/// kind that reads none (its entry's integration serves).
std::unique_ptr<const kube::jobs::JobIntegration> bind_integration(messages::ObjectKind job_kind,
                                                                   RelatedObjects related);

}  // namespace kueuepp::actors
