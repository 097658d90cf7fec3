#pragma once

// A tree's answer to a what-if question (kube/visibility/what_if_api.hpp): the object
// sent (a batch/v1 Job, built into its Workload as the Job integration builds it, or a
// kueue.x-k8s.io/v1beta2 Workload) is checked against the LocalQueue of the path and
// asked of the tree's engine (core::Engine::what_if), which stays as it was. Pure,
// tested without CAF.

#include <functional>
#include <optional>
#include <string_view>

#include "core/engine/engine.hpp"
#include "kube/visibility/what_if_api.hpp"

namespace kueuepp::actors {

/// The Workload object as it stands for `key` ("" when not cached): read for the
/// running workloads' spec.maximumExecutionTimeSeconds.
using StoredWorkloadText = std::function<std::string_view(std::string_view key)>;

/// The start estimate's hints: maximum execution times read from the stored Workloads
/// (each read once per question).
core::RuntimeHints runtime_hints(const StoredWorkloadText& text_of);

/// The Workload the question is about, or why the body cannot be asked about on this
/// LocalQueue (a message for a 400).
Expected<core::Workload> what_if_workload(const core::Engine& engine, const kube::visibility::WhatIfQuery& query);

kube::visibility::WhatIfResult answer_what_if(const core::Engine& engine, const kube::visibility::WhatIfQuery& query,
                                              core::Time now, const core::RuntimeHints& hints);

}  // namespace kueuepp::actors
