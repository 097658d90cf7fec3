#pragma once

// Answers to "why is this workload pending / why was it preempted" and "what is this
// ClusterQueue's queue", as JSON documents for the introspection endpoint.

#include <string>
#include <string_view>

#include "core/engine/engine.hpp"
#include "messages/introspection_protocol.hpp"

namespace kueuepp::actors {

/// `workload_text` is the Workload's JSON as last seen (may be empty): a workload's answer
/// adds its creation time, queue, priority and conditions from it. A ClusterQueue's
/// answer lists one page of its pending workloads (query.offset, query.limit).
messages::ExplainReply explain(const core::Engine& engine, const messages::Explain& query, const std::string& tree,
                               std::string_view workload_text = {});

}  // namespace kueuepp::actors
