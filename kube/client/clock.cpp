#include "kube/client/clock.hpp"

#include <memory>
#include <mutex>
#include <random>

namespace kueuepp::kube::client {

SteadyClock real_steady_clock() {
  return [] { return std::chrono::steady_clock::now(); };
}

RandomUnit default_random_unit() {
  struct State {
    std::mutex mutex;
    std::mt19937_64 engine{std::random_device{}()};
    std::uniform_real_distribution<double> unit{0.0, 1.0};
  };
  auto state = std::make_shared<State>();
  return [state] {
    std::lock_guard lock(state->mutex);
    return state->unit(state->engine);
  };
}

}  // namespace kueuepp::kube::client
