#include "tests/faults/fault_stats.hpp"

#include "kube/json/json.hpp"

namespace kueuepp::faults {

std::uint64_t FaultProxyStats::faults_total() const {
  std::uint64_t total = 0;
  for (auto n : faults) total += n;
  return total;
}

std::string FaultProxyStats::json() const {
  json::object out;
  out["connections"] = connections;
  out["open_connections"] = open_connections;
  out["requests"] = requests;
  out["forwarded"] = forwarded;
  out["upstream_errors"] = upstream_errors;
  out["faults_total"] = faults_total();
  json::object kinds;
  for (std::size_t i = 0; i < faults.size(); ++i) kinds[fault_kind_name(static_cast<FaultKind>(i))] = faults[i];
  out["faults"] = std::move(kinds);
  json::array rules;
  for (auto n : rule_faults) rules.push_back(n);
  out["rule_faults"] = std::move(rules);
  return json::dump(out);
}

}  // namespace kueuepp::faults
