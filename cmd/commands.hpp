#pragma once

// The subcommands of the kueuepp binary. Each lives in its own file in cmd/ and takes
// the arguments after the subcommand name. They return the process exit code.

#include <span>
#include <string_view>

namespace kueuepp::cmd {

using Args = std::span<const std::string_view>;

/// `kueuepp scenario FILE|DIR...`: replays admission scenarios through the engine.
int run_scenario(Args args);

/// `kueuepp apiserver [--listen ADDR:PORT] [--data-dir DIR] [--kubeconfig-out FILE]`.
int run_apiserver(Args args);

/// `kueuepp conformance [--kubeconfig FILE] [--crds DIR] DIR...`: replays API traces.
int run_conformance(Args args);

/// `kueuepp controller [--kubeconfig FILE] [--config FILE]`: the controller against a cluster.
int run_controller(Args args);

/// `kueuepp standalone [--listen ADDR:PORT] [--data-dir DIR] [--kubeconfig-out FILE]`:
/// embedded API server, controller and job runner.
int run_standalone(Args args);

/// `kueuepp perf --generator FILE [--rangespec FILE] [--out DIR] [--timeout SECONDS]
/// [--kubeconfig FILE]`: Kueue's scheduler performance test against kueuepp.
int run_perf(Args args);

/// `kueuepp whatif -f FILE [--kubeconfig FILE] [-n NS] [-o text|json|yaml]`: what would
/// happen to a Job or Workload if it were submitted now (asked over the visibility API).
int run_whatif(Args args);

/// `kueuepp takeover [--dry-run] [--rollback --kueue-crds DIR] [--kubeconfig FILE]`: moves a
/// cluster from Kueue to kueuepp in place (or back).
int run_takeover(Args args);

}  // namespace kueuepp::cmd
