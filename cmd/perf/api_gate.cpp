#include "cmd/perf/api_gate.hpp"

#include <deque>
#include <mutex>

namespace kueuepp::cmd::perf {

struct ApiGate::State : std::enable_shared_from_this<ApiGate::State> {
  mutable std::mutex mu;
  std::size_t max_in_flight = 1;
  std::size_t in_flight = 0;
  bool closed = false;
  std::deque<Start> waiting;

  Release make_release() {
    return [self = shared_from_this(), used = std::make_shared<bool>(false)] {
      if (*used) return;
      *used = true;
      self->release_one();
    };
  }

  void release_one() {
    Start next;
    {
      std::lock_guard lock(mu);
      if (closed || waiting.empty()) {
        --in_flight;
        return;
      }
      next = std::move(waiting.front());
      waiting.pop_front();
    }
    // The slot passes to the next request.
    next(make_release());
  }
};

ApiGate::ApiGate(std::size_t max_in_flight) : state_(std::make_shared<State>()) {
  state_->max_in_flight = max_in_flight == 0 ? 1 : max_in_flight;
}

void ApiGate::submit(Start start) {
  {
    std::lock_guard lock(state_->mu);
    if (state_->closed) return;
    if (state_->in_flight >= state_->max_in_flight) {
      state_->waiting.push_back(std::move(start));
      return;
    }
    ++state_->in_flight;
  }
  start(state_->make_release());
}

void ApiGate::close() {
  std::deque<Start> dropped;
  {
    std::lock_guard lock(state_->mu);
    state_->closed = true;
    dropped.swap(state_->waiting);
  }
}

std::size_t ApiGate::in_flight() const {
  std::lock_guard lock(state_->mu);
  return state_->in_flight;
}

std::size_t ApiGate::waiting() const {
  std::lock_guard lock(state_->mu);
  return state_->waiting.size();
}

}  // namespace kueuepp::cmd::perf
