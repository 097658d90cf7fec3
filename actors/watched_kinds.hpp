#pragma once

// The API resource behind each kind the controller watches or writes, and the kinds of
// job it can manage: Kueue's framework name, the integration (kube/jobs) and the tag its
// watch events carry.

#include <optional>
#include <span>
#include <string_view>

#include "kube/client/resource.hpp"
#include "messages/object_kind.hpp"

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

}  // namespace kueuepp::actors
