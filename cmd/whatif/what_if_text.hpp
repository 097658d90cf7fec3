#pragma once

// `kueuepp whatif`'s default output: a WhatIfResult (kube/visibility/what_if_api.hpp)
// in a few sentences a user reads at a glance.

#include <string>

#include "kube/json/json.hpp"

namespace kueuepp::cmd {

/// The answer as text; `local_queue` is the queue asked ("ns/name").
std::string what_if_text(const json::value& result, const std::string& local_queue);

}  // namespace kueuepp::cmd
