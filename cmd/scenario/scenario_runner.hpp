#pragma once

// Replays an admission scenario (../shared/scenarios/FORMAT.md): Kueue objects applied in
// order, Expect documents checked after the engine has run to quiescence, Finish and
// Delete documents applied between them.

#include <string>
#include <string_view>

namespace kueuepp::scenario {

struct Result {
  bool passed = false;
  /// Why it failed: the document and the first difference or error.
  std::string failure;
  /// Engine cycles run over the whole scenario.
  std::size_t cycles = 0;
};

/// Runs one scenario given as YAML text. `name` is used in messages only.
Result run_scenario(std::string_view name, std::string_view yaml);

}  // namespace kueuepp::scenario
