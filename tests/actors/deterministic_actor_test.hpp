#pragma once

// The base of the actor protocol tests: an actor system on CAF's test coordinator, so
// nothing runs until the test says so (`sched_->run()`, `sched_->trigger_timeouts()`)
// and every run is the same. Fixtures spawn their actors into `system_` and stop them
// in their own destructor, before this one destroys the system.

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <gtest/gtest.h>

#include <memory>

namespace kueuepp::actors {

class DeterministicActorTest : public ::testing::Test {
 protected:
  DeterministicActorTest() {
    cfg_.set("scheduler.policy", caf::atom("testing"));
    cfg_.set("logger.verbosity", caf::atom("quiet"));
    system_ = std::make_unique<caf::actor_system>(cfg_);
    sched_ = dynamic_cast<caf::scheduler::test_coordinator*>(&system_->scheduler());
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
};

}  // namespace kueuepp::actors
