#pragma once

// Answers to "why is this workload pending / why was it preempted" and "what is this
// ClusterQueue's queue", as JSON documents for the introspection endpoint.

#include <string>

#include "core/engine/engine.hpp"
#include "messages/introspection_protocol.hpp"

namespace kueuepp::actors {

messages::ExplainReply explain(const core::Engine& engine, const messages::Explain& query, const std::string& tree);

}  // namespace kueuepp::actors
