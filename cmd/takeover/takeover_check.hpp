#pragma once

// The takeover's first step, which writes nothing: Kueue's CRDs, every Kueue object
// (a page at a time) and kueuepp's webhook server looked at, and each reason not to go
// on named (kube/takeover/takeover_checks.hpp). With --dry-run it also says what each
// step would do.

#include <map>
#include <string>
#include <vector>

#include "cmd/takeover/takeover_context.hpp"
#include "kube/takeover/takeover_checks.hpp"

namespace kueuepp::cmd::takeover {

struct CheckReport {
  std::vector<kube::takeover::Refusal> refusals;
  /// Objects of each kind kueuepp serves, by kind.
  std::map<std::string, std::size_t> objects;
  /// CRDs already kueuepp's (a takeover that was interrupted) and those to replace.
  std::vector<std::string> crds_done;
  std::vector<std::string> crds_to_replace;
  std::vector<std::string> crds_to_trim;
};

Expected<CheckReport> check_cluster(TakeoverContext& ctx);

/// What each step would do, one line each (for --dry-run).
void print_plan(TakeoverContext& ctx, const CheckReport& report);

}  // namespace kueuepp::cmd::takeover
