#pragma once

// What a fault proxy saw and did: connections, requests, forwards, and the faults it
// injected per kind and per rule.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/faults/fault_plan.hpp"

namespace kueuepp::faults {

struct FaultProxyStats {
  std::uint64_t connections = 0;      ///< client connections accepted
  std::uint64_t open_connections = 0; ///< client connections open now
  std::uint64_t requests = 0;         ///< requests read from clients
  std::uint64_t forwarded = 0;        ///< requests sent to the upstream server
  std::uint64_t upstream_errors = 0;  ///< upstream unreachable or failing (not injected)
  /// Faults injected, indexed by FaultKind. A blackout counts each connection it reset
  /// or closed.
  std::array<std::uint64_t, kFaultKindCount> faults{};
  /// Faults injected, indexed by rule.
  std::vector<std::uint64_t> rule_faults;

  std::uint64_t faults_of(FaultKind kind) const { return faults[static_cast<std::size_t>(kind)]; }
  std::uint64_t faults_total() const;
  /// One JSON line (no newline): {"connections":..,"open_connections":..,"requests":..,"forwarded":..,
  /// "upstream_errors":..,"faults_total":..,"faults":{"reset_before":..,...},"rule_faults":[..]}
  std::string json() const;
};

}  // namespace kueuepp::faults
